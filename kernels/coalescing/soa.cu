/*+++
problem = "elementwise"
sizes = ["2^24"]
# One thread per element, 256 per block: s[i] = x[i] + y[i], the two fields
# aos.cu reads, each in an array of its own (a structure of arrays).
[[launch]]
kernel = "soa_sum"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "s", "n"]

[elementwise]
inputs = ["x", "y"]
output = "s"
reference = "x + y"
+++*/

// ANCHOR: kernel
// A structure of arrays: field x of every element in one array, field y in
// another. Each load of a warp reads 32 neighbouring floats.
extern "C" __global__ void soa_sum(const float* x, const float* y, float* s, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[i] = x[i] + y[i];
    }
}
// ANCHOR_END: kernel
