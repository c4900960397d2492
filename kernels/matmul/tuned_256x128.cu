/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048", "M = N = K = 4096", "M = N = K = 8192"]
budget_s = 90
# sgemm.cuh's double-buffered kernel with 256 x 128 tiles of C and 16 x 8
# elements a thread (256 threads), once per slice depth BK.
[sweep]
BK = [8, 16]
[[launch]]
kernel = "matmul_tuned_256x128"
grid = "ceil_div(m, 256) * ceil_div(n, 128)"
block = 256
shared = "2 * BK * (256 + 4 + 128) * 4"
args = ["a", "b", "c", "m", "n", "k"]
+++*/

// The swept slice depth comes as the macro BK, a name sgemm.cuh gives a
// template parameter: it is kept as a constant and the macro undefined.
constexpr int SLICE = BK;
#undef BK
#include "sgemm.cuh"

// Registers: __launch_bounds__ asks for one block an SM.
static_assert(sgemm_shared_bytes(256, 128, SLICE, 2) == 2 * SLICE * (256 + 4 + 128) * 4, "the header's shared");

extern "C" __global__ void __launch_bounds__(256, 1)
matmul_tuned_256x128(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      unsigned m, unsigned n, unsigned k) {
    sgemm<256, 128, SLICE, 16, 8, 2>(a, b, c, m, n, k);
}
