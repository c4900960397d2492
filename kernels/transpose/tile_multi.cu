/*+++
problem = "transpose"
sizes = ["4096x4096", "8192x8192"]
# One block per 32 x 32 tile of x, tiles numbered across x's columns first;
# 256 threads (32 x 8), each moving four elements of the tile through the
# padded tile of tile_padded.cu.
[[launch]]
kernel = "transpose_tile_multi"
grid = "ceil_div(cols, 32) * ceil_div(rows, 32)"
block = 256
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 32
#define ROWS_PER_PASS 8  // 256 threads = 32 columns x 8 rows of the tile

// ANCHOR: kernel
// tile_padded.cu with a quarter of the threads: thread (tx, ty) moves tile
// rows ty, ty + 8, ty + 16 and ty + 24, so each thread issues four loads
// before the barrier and four stores after it.
extern "C" __global__ void transpose_tile_multi(const float* __restrict__ x, float* __restrict__ y,
                                                unsigned int rows, unsigned int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int c0 = (blockIdx.x % tiles_across) * TILE;
    const unsigned int r0 = (blockIdx.x / tiles_across) * TILE;
    const unsigned int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        if (r0 + j < rows && c0 + tx < cols) tile[j][tx] = x[(size_t)(r0 + j) * cols + c0 + tx];
    }
    __syncthreads();
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        if (c0 + j < cols && r0 + tx < rows) y[(size_t)(c0 + j) * rows + r0 + tx] = tile[tx][j];
    }
}
// ANCHOR_END: kernel
