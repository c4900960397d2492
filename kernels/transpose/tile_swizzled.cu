/*+++
problem = "transpose"
sizes = ["4096x4096", "8192x8192"]
# tile.cu with the tile unpadded (32 x 32) and each row's columns
# permuted by an XOR with the row number, so that a column of the tile
# spreads over the 32 banks.
[[launch]]
kernel = "transpose_tile_swizzled"
grid = "ceil_div(cols, 32) * ceil_div(rows, 32)"
block = 1024
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 32

// ANCHOR: kernel
// The tile column an element of tile row r and column c is stored in.
#define SLOT(r, c) ((c) ^ (r))
// Element (r, c) of the tile is stored in tile[r][c ^ r]: within a row,
// c ^ r takes every value 0..31 once (reads of a row stay conflict-free),
// and down column c, c ^ r differs for every r (bank c ^ r).
extern "C" __global__ void transpose_tile_swizzled(const float* __restrict__ x, float* __restrict__ y,
                                                   unsigned int rows, unsigned int cols) {
    __shared__ float tile[TILE][TILE];
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
