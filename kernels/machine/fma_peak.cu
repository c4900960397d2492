/*+++
problem = "fma_f32"
sizes = ["2^26"]
# Every SM full: 8 blocks of 256 threads (64 warps, 16 per scheduler), each
# thread running 4 independent FMA chains.
[[launch]]
kernel = "fma_peak"
grid = "sms * 8"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "fma.cuh"

extern "C" __global__ void fma_peak(const float* x, float* y, float a, float b,
                                    unsigned int steps, unsigned int n) {
    fma_chains<4>(x, y, a, b, steps, n);
}
