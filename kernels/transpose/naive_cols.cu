/*+++
problem = "transpose"
sizes = ["4096x4096", "8192x8192"]
# naive.cu with the roles of rows and columns swapped: one block per
# 32 x 32 tile, 1024 threads, one element each.
[[launch]]
kernel = "transpose_naive_cols"
grid = "ceil_div(cols, 32) * ceil_div(rows, 32)"
block = 1024
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 32

// ANCHOR: kernel
// Lanes of a warp differ in the row of x they read: their reads are 32
// floats of one column of x, cols floats apart, and their writes 32
// neighbouring floats of one row of y.
extern "C" __global__ void transpose_naive_cols(const float* __restrict__ x, float* __restrict__ y,
                                                unsigned int rows, unsigned int cols) {
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int c0 = (blockIdx.x % tiles_across) * TILE;
    const unsigned int r0 = (blockIdx.x / tiles_across) * TILE;
    const unsigned int r = r0 + threadIdx.x % TILE, c = c0 + threadIdx.x / TILE;
    if (r < rows && c < cols) y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}
// ANCHOR_END: kernel
