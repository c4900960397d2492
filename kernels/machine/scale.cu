/*+++
problem = "elementwise"
sizes = ["2^24"]
# The first kernel: one thread per element, 256 threads per block, as many
# blocks as it takes to cover n (the last one partly idle).
[[launch]]
kernel = "scale"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "a", "n"]

[elementwise]
inputs = ["x"]
scalars = { a = 2.0 }
output = "y"
reference = "a * x"
+++*/

// ANCHOR: kernel
extern "C" __global__ void scale(const float* x, float* y, float a, unsigned int n) {
    // ANCHOR: index
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // ANCHOR_END: index
    if (i < n) {
        y[i] = a * x[i];
    }
}
// ANCHOR_END: kernel
