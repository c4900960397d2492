/*+++
problem = "elementwise"
sizes = [1]
# The smallest launch there is: one block of one warp, one thread of which
# copies the one element. Its time is the time of a launch itself.
[[launch]]
kernel = "tiny"
grid = "ceil_div(n, 32)"
block = 32
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

// ANCHOR: kernel
extern "C" __global__ void tiny(const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
// ANCHOR_END: kernel
