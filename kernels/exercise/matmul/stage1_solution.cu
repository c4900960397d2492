/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048"]
# One block of 1024 threads per 32 x 32 tile of C, tiles numbered across
# C's columns first; one thread per element of C.
[[launch]]
kernel = "mm_stage1_solution"
grid = "ceil_div(m, 32) * ceil_div(n, 32)"
block = 1024
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#define TILE 32

// ANCHOR: kernel
// The naive kernel with the roles of t % 32 and t / 32 swapped: thread t
// computes element (row0 + t / 32, col0 + t % 32). The 32 lanes of a warp
// now differ in the column: at each step p they read one element of A
// (the same for all) and 32 neighbouring elements of a row of B, and they
// write 32 neighbouring elements of a row of C.
extern "C" __global__ void __launch_bounds__(1024)
mm_stage1_solution(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
             unsigned m, unsigned n, unsigned k) {
    const unsigned tiles_n = (n + TILE - 1) / TILE;
    const unsigned row = (blockIdx.x / tiles_n) * TILE + threadIdx.x / TILE;
    const unsigned col = (blockIdx.x % tiles_n) * TILE + threadIdx.x % TILE;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (unsigned p = 0; p < k; ++p) acc = fmaf(a[(size_t)row * k + p], b[(size_t)p * n + col], acc);
        c[(size_t)row * n + col] = acc;
    }
}
// ANCHOR_END: kernel
