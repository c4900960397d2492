/*+++
problem = "transpose"
sizes = ["4096x4096"]
# Stage 1's solution with the tile's rows one float longer (33 floats), so
# that a column of the tile spreads over the 32 banks.
[[launch]]
kernel = "transpose_tile_pad_rows"
grid = "ceil_div(cols, 32) * ceil_div(rows, 32)"
block = 1024
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 32

// ANCHOR: kernel
// The tile column an element of tile row r and column c is stored in.
#define SLOT(r, c) (c)
// Element (r, c) of the tile is tile[r][c], rows 33 floats long: column
// c of the tile is 32 floats 33 apart, in banks (33 r + c) % 32 =
// (r + c) % 32, a different bank for every r.
extern "C" __global__ void transpose_tile_pad_rows(const float* __restrict__ x, float* __restrict__ y,
                                                 unsigned int rows, unsigned int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int c0 = (blockIdx.x % tiles_across) * TILE;
    const unsigned int r0 = (blockIdx.x / tiles_across) * TILE;
    const unsigned int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    // Read: lanes differ in tx, so a warp reads 32 neighbouring floats of
    // row r0 + ty of x and stores them in row ty of the tile.
    if (r0 + ty < rows && c0 + tx < cols) tile[ty][SLOT(ty, tx)] = x[(size_t)(r0 + ty) * cols + c0 + tx];
    __syncthreads();
    // Write: row c0 + ty of y is column c0 + ty of x, element r0 + tx of it
    // is tile[tx][ty]; a warp reads a column of the tile and writes 32
    // neighbouring floats of y.
    if (c0 + ty < cols && r0 + tx < rows) y[(size_t)(c0 + ty) * rows + r0 + tx] = tile[tx][SLOT(tx, ty)];
}
// ANCHOR_END: kernel
