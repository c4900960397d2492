/*+++
problem = "transpose"
sizes = ["4096x4096", "8192x8192"]
# One block per 64 x 64 tile of x, tiles numbered down x's rows first: consecutive blocks take the tiles of one column of tiles;
# 256 threads (16 float4s x 16 rows), each moving four float4s in and four out.
[[launch]]
kernel = "transpose_tile_64_float4"
grid = "ceil_div(cols, 64) * ceil_div(rows, 64)"
block = 256
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 64
#define VECS 16          // float4s across a tile row
#define ROWS_PER_PASS 16 // 256 threads = 16 float4s x 16 rows
#define COLUMN_ORDER 1  // 1: consecutive blocks walk down a column of tiles

// ANCHOR: kernel
// tile_64.cu with float4 accesses: thread (tx, ty) loads the float4 at
// columns 4 tx .. 4 tx + 3 of tile rows ty, ty + 16, ty + 32, ty + 48 and,
// after the barrier, stores four float4s of y built from four rows of the
// tile, so a warp's access is 512 contiguous bytes of x or y. A tile cut
// by the matrix's edge, or rows not a whole number of float4s, takes the
// one-float path (the same for every thread of the block).
extern "C" __global__ void __launch_bounds__(256) transpose_tile_64_float4(const float* __restrict__ x,
                                                                   float* __restrict__ y,
                                                                   unsigned int rows,
                                                                   unsigned int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int tiles_down = (rows + TILE - 1) / TILE;
    const unsigned int bx = COLUMN_ORDER ? blockIdx.x / tiles_down : blockIdx.x % tiles_across;
    const unsigned int by = COLUMN_ORDER ? blockIdx.x % tiles_down : blockIdx.x / tiles_across;
    const unsigned int c0 = bx * TILE, r0 = by * TILE;
    const bool whole = r0 + TILE <= rows && c0 + TILE <= cols && rows % 4 == 0 && cols % 4 == 0;
    if (whole) {
        const unsigned int tx = threadIdx.x % VECS, ty = threadIdx.x / VECS;
#pragma unroll
        for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
            const float4 v = reinterpret_cast<const float4*>(x + (size_t)(r0 + j) * cols + c0)[tx];
            tile[j][4 * tx] = v.x;
            tile[j][4 * tx + 1] = v.y;
            tile[j][4 * tx + 2] = v.z;
            tile[j][4 * tx + 3] = v.w;
        }
        __syncthreads();
#pragma unroll
        for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
            const float4 v = make_float4(tile[4 * tx][j], tile[4 * tx + 1][j], tile[4 * tx + 2][j],
                                         tile[4 * tx + 3][j]);
            reinterpret_cast<float4*>(y + (size_t)(c0 + j) * rows + r0)[tx] = v;
        }
        return;
    }
    const unsigned int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    for (unsigned int j = ty; j < TILE; j += 8)
        for (unsigned int i = tx; i < TILE; i += 32)
            if (r0 + j < rows && c0 + i < cols) tile[j][i] = x[(size_t)(r0 + j) * cols + c0 + i];
    __syncthreads();
    for (unsigned int j = ty; j < TILE; j += 8)
        for (unsigned int i = tx; i < TILE; i += 32)
            if (c0 + j < cols && r0 + i < rows) y[(size_t)(c0 + j) * rows + r0 + i] = tile[i][j];
}
// ANCHOR_END: kernel
