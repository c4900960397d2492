/*+++
problem = "fma_f32"
sizes = ["2^22", "2^24"]
# One element per thread, blocks of 256 (eight warps), as many blocks as it
# takes. Every thread takes the same path: the baseline of the branches.
[[launch]]
kernel = "one_path"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "paths.cuh"

// ANCHOR: kernel
extern "C" __global__ void one_path(const float* x, float* y, float a, float b,
                                    unsigned int steps, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = path_fma(x[i], a, b, steps);
    }
}
// ANCHOR_END: kernel
