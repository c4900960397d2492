/*+++
problem = "fma_f32"
sizes = ["2^24"]
# One block of 128 threads per SM: four warps, one for each of the SM's four
# schedulers. Each thread runs CHAINS independent FMA chains at once.
[sweep]
CHAINS = [1, 2, 4, 8]
[[launch]]
kernel = "fma_chains_k"
grid = "sms"
block = 128
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "fma.cuh"

extern "C" __global__ void fma_chains_k(const float* x, float* y, float a, float b,
                                        unsigned int steps, unsigned int n) {
    fma_chains<CHAINS>(x, y, a, b, steps, n);
}
