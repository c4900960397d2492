/*+++
problem = "elementwise"
sizes = ["2^20", "2^24", "2^26"]
# One thread per element, 256 threads per block, as many blocks as it takes:
# 4096 blocks at 2^20, 262,144 at 2^26.
[[launch]]
kernel = "add_per_thread"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

// ANCHOR: kernel
extern "C" __global__ void add_per_thread(const float* x, const float* y, float* z,
                                          unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        z[i] = x[i] + y[i];
    }
}
// ANCHOR_END: kernel
