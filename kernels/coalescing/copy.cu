/*+++
problem = "elementwise"
sizes = ["2^24", "2^28"]
# One thread per element, 256 per block: the contiguous baseline that every
# other access pattern of the chapter is compared with.
[[launch]]
kernel = "copy"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

// ANCHOR: kernel
// Thread i copies element i: the 32 lanes of a warp read 32 neighbouring
// floats (128 bytes) and write 32 neighbouring floats.
extern "C" __global__ void copy(const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i];
    }
}
// ANCHOR_END: kernel
