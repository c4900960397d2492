/*+++
problem = "elementwise"
sizes = ["2^24"]
# One thread per element, 256 per block: y[i] = x[idx[i]], idx a random
# permutation of 0..n that leaves no element in place.
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
// Two loads per thread: idx[i], 32 neighbouring ints per warp, then
// x[idx[i]], 32 floats wherever the permutation puts them.
extern "C" __global__ void gather(const float* x, const int* idx, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[idx[i]];
    }
}
// ANCHOR_END: kernel
