/*+++
problem = "transpose"
sizes = ["4096x4096", "8192x8192"]
# One block per 32 x 32 tile of x, tiles numbered across x's columns
# first; 1024 threads, one element each, straight from x to y.
[[launch]]
kernel = "transpose_naive"
grid = "ceil_div(cols, 32) * ceil_div(rows, 32)"
block = 1024
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 32

// ANCHOR: kernel
// Thread (tx, ty) of the block moves element (r0 + ty, c0 + tx) of x to
// y[c][r]. Lanes of a warp share ty and differ in tx: their reads are 32
// neighbouring floats of one row of x, their writes 32 floats of one
// column of y, rows floats apart.
extern "C" __global__ void transpose_naive(const float* __restrict__ x, float* __restrict__ y,
                                           unsigned int rows, unsigned int cols) {
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int c0 = (blockIdx.x % tiles_across) * TILE;
    const unsigned int r0 = (blockIdx.x / tiles_across) * TILE;
    const unsigned int r = r0 + threadIdx.x / TILE, c = c0 + threadIdx.x % TILE;
    if (r < rows && c < cols) y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}
// ANCHOR_END: kernel
