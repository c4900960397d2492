/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048", "M = N = K = 4096", "M = N = K = 8192"]
# One block of 256 threads per 128 x 128 tile of C, tiles numbered across
# C's columns first; each thread computes an 8 x 8 tile of C as four 4 x 4
# sub-tiles. Dynamic shared memory: one buffer of 8 x (132 + 128) floats.
[[launch]]
kernel = "matmul_warptile"
grid = "ceil_div(m, 128) * ceil_div(n, 128)"
block = 256
shared = 8320
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#include "sgemm.cuh"

// matmul/vec's tiles (128 x 128 of C, 8-deep slices, 8 x 8 per thread) in
// the warp layout of sgemm.cuh, with one buffer.
static_assert(sgemm_shared_bytes(128, 128, 8, 1) == 8320, "the header's shared");

extern "C" __global__ void __launch_bounds__(256)
matmul_warptile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                unsigned m, unsigned n, unsigned k) {
    sgemm<128, 128, 8, 8, 8, 1>(a, b, c, m, n, k);
}
