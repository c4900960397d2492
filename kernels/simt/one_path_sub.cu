/*+++
problem = "fma_f32"
sizes = ["2^22", "2^24"]
# one_path.cu with the other path: every thread subtracts.
[[launch]]
kernel = "one_path_sub"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "b", "steps", "n"]
+++*/
#include "paths.cuh"

extern "C" __global__ void one_path_sub(const float* x, float* y, float b,
                                        unsigned int steps, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = path_sub(x[i], b, steps);
    }
}
