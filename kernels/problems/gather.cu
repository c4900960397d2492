/*+++
problem = "elementwise"
sizes = ["2^20", "2^24", "2^26"]
# One thread per element, 256 per block: y[i] = x[idx[i]], idx a random
# permutation of 0..n with no element left in place.
[[launch]]
kernel = "gather"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "idx", "y", "n"]

[elementwise]
inputs = ["x", "idx"]
indices = { idx = "permutation" }
output = "y"
reference = "x[idx[i]]"
+++*/

// ANCHOR: kernel
extern "C" __global__ void gather(const float* x, const int* idx, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // The read of idx is coalesced; the read of x goes wherever idx says.
        y[i] = x[idx[i]];
    }
}
// ANCHOR_END: kernel
