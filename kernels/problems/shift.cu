/*+++
problem = "elementwise"
sizes = ["2^20", "2^24", "2^26"]
# One thread per element, 256 per block: y[i] = x[i + 1], and 0 past the
# end (boundary = "zero").
[[launch]]
kernel = "shift"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x[i + 1]"
boundary = "zero"
+++*/

// ANCHOR: kernel
extern "C" __global__ void shift(const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // i + 1 <= n fits in 32 bits, since i < n <= 2^32 - 1.
        y[i] = i + 1 < n ? x[i + 1] : 0.0f;
    }
}
// ANCHOR_END: kernel
