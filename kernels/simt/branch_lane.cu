/*+++
problem = "fma_f32"
sizes = ["2^22", "2^24"]
# one_path.cu's launch. The path is picked by `threadIdx.x & 1`:
# odd lanes subtract, even lanes multiply-add: every warp holds both.
[[launch]]
kernel = "branch_lane"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "paths.cuh"

extern "C" __global__ void branch_lane(const float* x, float* y, float a, float b,
                                      unsigned int steps, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        // ANCHOR: branch
        if (threadIdx.x & 1) {
            v = path_sub(v, b, steps);
        } else {
            v = path_fma(v, a, b, steps);
        }
        // ANCHOR_END: branch
        y[i] = v;
    }
}
