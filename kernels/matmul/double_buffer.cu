/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048", "M = N = K = 4096", "M = N = K = 8192"]
# One block of 256 threads per 128 x 128 tile of C, tiles numbered across
# C's columns first; each thread computes an 8 x 8 tile of C as four 4 x 4
# sub-tiles. Dynamic shared memory: two buffers of 8 x (132 + 128) floats.
[[launch]]
kernel = "matmul_double_buffer"
grid = "ceil_div(m, 128) * ceil_div(n, 128)"
block = 256
shared = 16640
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#include "sgemm.cuh"

// matmul/warptile with two buffers: the next slice's loads are in flight
// while the block multiplies the current one, and one barrier a slice.
static_assert(sgemm_shared_bytes(128, 128, 8, 2) == 16640, "the header's shared");

extern "C" __global__ void __launch_bounds__(256)
matmul_double_buffer(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                     unsigned m, unsigned n, unsigned k) {
    sgemm<128, 128, 8, 8, 8, 2>(a, b, c, m, n, k);
}
