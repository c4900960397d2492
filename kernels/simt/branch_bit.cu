/*+++
problem = "fma_f32"
sizes = ["2^22", "2^24"]
# one_path.cu's launch. The path is picked by one bit of threadIdx.x: BIT
# below 32 splits every warp into two halves that take different paths;
# BIT of 32 and above splits whole warps, each warp taking one path.
[sweep]
BIT = [1, 2, 4, 8, 16, 32, 64, 128]
[[launch]]
kernel = "branch_bit"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "paths.cuh"

// ANCHOR: kernel
extern "C" __global__ void branch_bit(const float* x, float* y, float a, float b,
                                      unsigned int steps, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (threadIdx.x & BIT) {
            v = path_sub(v, b, steps);
        } else {
            v = path_fma(v, a, b, steps);
        }
        y[i] = v;
    }
}
// ANCHOR_END: kernel
