/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048"]
# One block of 1024 threads per 32 x 32 tile of C, tiles numbered across
# C's columns first; one thread per element of C.
[[launch]]
kernel = "mm_stage1_starter"
grid = "ceil_div(m, 32) * ceil_div(n, 32)"
block = 1024
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#define TILE 32

// ANCHOR: kernel
// Thread t of the block computes element (row0 + t % 32, col0 + t / 32)
// of C: a dot product of a row of A and a column of B. The 32 lanes of a
// warp differ in the row: at each step p they read 32 elements of A k
// floats apart and one element of B, and they write 32 elements of C n
// floats apart.
extern "C" __global__ void __launch_bounds__(1024)
mm_stage1_starter(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
             unsigned m, unsigned n, unsigned k) {
    const unsigned tiles_n = (n + TILE - 1) / TILE;
    const unsigned row = (blockIdx.x / tiles_n) * TILE + threadIdx.x % TILE;
    const unsigned col = (blockIdx.x % tiles_n) * TILE + threadIdx.x / TILE;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (unsigned p = 0; p < k; ++p) acc = fmaf(a[(size_t)row * k + p], b[(size_t)p * n + col], acc);
        c[(size_t)row * n + col] = acc;
    }
}
// ANCHOR_END: kernel
