/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 1024", "M = N = K = 2048"]
# One block of 1024 threads (32 x 32) per 32 x 32 tile of C, tiles
# numbered across C's columns first; one thread per element of C.
[[launch]]
kernel = "matmul_smem"
grid = "ceil_div(m, 32) * ceil_div(n, 32)"
block = 1024
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#define TILE 32

// ANCHOR: kernel
// The coalesced kernel's threads (thread t computes element (row0 + t / 32,
// col0 + t % 32) of C), with A and B staged in shared memory a 32 x 32
// tile at a time: each thread loads one element of each tile, the block
// waits, and every thread takes its 32 products from shared memory. Each
// element of A and B loaded from global memory now serves 32 threads.
extern "C" __global__ void __launch_bounds__(1024)
matmul_smem(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
            unsigned m, unsigned n, unsigned k) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    const unsigned tiles_n = (n + TILE - 1) / TILE;
    const unsigned ty = threadIdx.x / TILE, tx = threadIdx.x % TILE;
    const unsigned row = (blockIdx.x / tiles_n) * TILE + ty;
    const unsigned col = (blockIdx.x % tiles_n) * TILE + tx;
    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < k; k0 += TILE) {
        // Row ty of A's tile and row ty of B's tile; zeros past the edges.
        as[ty][tx] = (row < m && k0 + tx < k) ? a[(size_t)row * k + k0 + tx] : 0.0f;
        bs[ty][tx] = (k0 + ty < k && col < n) ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (unsigned p = 0; p < TILE; ++p) acc = fmaf(as[ty][p], bs[p][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = acc;
}
// ANCHOR_END: kernel
