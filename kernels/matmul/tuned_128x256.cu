/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048", "M = N = K = 4096", "M = N = K = 8192"]
budget_s = 90
# sgemm.cuh's double-buffered kernel with 128 x 256 tiles of C and 8 x 16
# elements a thread (256 threads), once per slice depth BK.
[sweep]
BK = [8, 16]
[[launch]]
kernel = "matmul_tuned_128x256"
grid = "ceil_div(m, 128) * ceil_div(n, 256)"
block = 256
shared = "2 * BK * (128 + 4 + 256) * 4"
args = ["a", "b", "c", "m", "n", "k"]
+++*/

// The swept slice depth comes as the macro BK, a name sgemm.cuh gives a
// template parameter: it is kept as a constant and the macro undefined.
constexpr int SLICE = BK;
#undef BK
#include "sgemm.cuh"

// Registers: __launch_bounds__ asks for one block an SM.
static_assert(sgemm_shared_bytes(128, 256, SLICE, 2) == 2 * SLICE * (128 + 4 + 256) * 4, "the header's shared");

extern "C" __global__ void __launch_bounds__(256, 1)
matmul_tuned_128x256(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      unsigned m, unsigned n, unsigned k) {
    sgemm<128, 256, SLICE, 8, 16, 2>(a, b, c, m, n, k);
}
