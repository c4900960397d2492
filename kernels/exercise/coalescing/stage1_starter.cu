/*+++
problem = "elementwise"
sizes = ["2^24"]
# CHUNK = 8 elements per thread, 256 threads per block: a block copies
# 256 * 8 consecutive elements.
[[launch]]
kernel = "copy_chunks"
grid = "ceil_div(n, 256 * 8)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define CHUNK 8  // elements per thread; the grid formula above divides by 256 * CHUNK

// ANCHOR: kernel
// Each thread copies CHUNK consecutive elements, as a loop in C would split
// an array between workers: thread t owns elements CHUNK t to CHUNK t + 7.
extern "C" __global__ void copy_chunks(const float* x, float* y, unsigned int n) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int k = 0; k < CHUNK; ++k) {
        unsigned int i = t * CHUNK + k;
        if (i < n) y[i] = x[i];
    }
}
// ANCHOR_END: kernel
