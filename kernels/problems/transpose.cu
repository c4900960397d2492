/*+++
problem = "transpose"
# rows x cols of x: square, and a wide matrix whose transpose is tall.
sizes = ["1024x1024", "4096x4096", "8192x8192", "2048x16384"]
# One block per 32 x 32 tile of x, tiles numbered across x's columns
# first; 256 threads, each moving four elements of the tile.
[[launch]]
kernel = "transpose_tiled"
grid = "ceil_div(cols, 32) * ceil_div(rows, 32)"
block = 256
args = ["x", "y", "rows", "cols"]
+++*/

#define TILE 32
#define ROWS_PER_PASS 8  // 256 threads = 32 columns x 8 rows of the tile

// y (cols x rows) = x (rows x cols) transposed, both row-major. A block
// reads a 32 x 32 tile of x a row at a time (each warp one row: 128
// contiguous bytes), and writes it to y a row of y at a time, reading the
// tile by columns. The tile's rows are 33 floats long, so the 32 elements
// of one of its columns lie in 32 different shared-memory banks.
// ANCHOR: tile
extern "C" __global__ void transpose_tiled(const float* __restrict__ x, float* __restrict__ y,
                                           unsigned int rows, unsigned int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const unsigned int tiles_across = (cols + TILE - 1) / TILE;
    const unsigned int c0 = (blockIdx.x % tiles_across) * TILE;
    const unsigned int r0 = (blockIdx.x / tiles_across) * TILE;
    const unsigned int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        const unsigned int r = r0 + j, c = c0 + tx;
        if (r < rows && c < cols) tile[j][tx] = x[(size_t)r * cols + c];
    }
    __syncthreads();
    // Row c of y holds column c of x: element r of it is x[r][c].
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        const unsigned int c = c0 + j, r = r0 + tx;
        if (c < cols && r < rows) y[(size_t)c * rows + r] = tile[tx][j];
    }
}
// ANCHOR_END: tile
