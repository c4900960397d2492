/*+++
problem = "transpose"
sizes = ["4096x4096", "8192x8192"]
# One block per 64 x 64 tile of x, tiles numbered across x's columns first;
# 256 threads (32 x 8), each moving sixteen elements of the tile.
[[launch]]
kernel = "transpose_tile_64"
grid = "ceil_div(cols, 64) * ceil_div(rows, 64)"
block = 256
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 64
#define LANES 32         // columns of the tile a pass covers: one warp's worth
#define ROWS_PER_PASS 8  // 256 threads = 32 columns x 8 rows

// ANCHOR: kernel
// A 64 x 64 tile, rows padded to 65 floats (column c of the tile is in
// banks (65 r + c) % 32 = (r + c) % 32). Thread (tx, ty) moves columns tx
// and tx + 32 of tile rows ty, ty + 8, ..., ty + 56: sixteen loads before
// the barrier, sixteen stores after it, each warp-wide access 128
// contiguous bytes of x or y.
extern "C" __global__ void __launch_bounds__(256) transpose_tile_64(const float* __restrict__ x,
                                                                   float* __restrict__ y,
                                                                   unsigned int rows,
                                                                   unsigned int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int c0 = (blockIdx.x % tiles_across) * TILE;
    const unsigned int r0 = (blockIdx.x / tiles_across) * TILE;
    const unsigned int tx = threadIdx.x % LANES, ty = threadIdx.x / LANES;
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
#pragma unroll
        for (unsigned int i = tx; i < TILE; i += LANES) {
            if (r0 + j < rows && c0 + i < cols) tile[j][i] = x[(size_t)(r0 + j) * cols + c0 + i];
        }
    }
    __syncthreads();
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
#pragma unroll
        for (unsigned int i = tx; i < TILE; i += LANES) {
            if (c0 + j < cols && r0 + i < rows) y[(size_t)(c0 + j) * rows + r0 + i] = tile[i][j];
        }
    }
}
// ANCHOR_END: kernel
