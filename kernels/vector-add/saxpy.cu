/*+++
problem = "elementwise"
sizes = ["2^16", "2^20", "2^24", "2^26"]
# The launch of vector-add/add: one thread per element, 256 per block.
[[launch]]
kernel = "saxpy"
grid = "ceil_div(n, 256)"
block = 256
args = ["a", "x", "y", "n"]

# y is read and overwritten: the runner restores it before every cold run
# and every check, and checks against the original y.
[elementwise]
inputs = ["x", "y"]
scalars = { a = 2.5 }
output = "y"
reference = "a * x + y"
+++*/

// ANCHOR: kernel
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
// ANCHOR_END: kernel
