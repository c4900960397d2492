/*+++
problem = "elementwise"
sizes = ["2^24"]
# CHUNK = 8 elements per thread, 256 threads per block: a block copies
# 256 * 8 consecutive elements (the starter's launch).
[[launch]]
kernel = "copy_interleaved"
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
// The block still owns CHUNK * blockDim.x consecutive elements, but on pass
// k thread t copies element k * blockDim.x + t of them, so the 32 lanes of
// a warp copy 32 neighbouring elements on every pass.
extern "C" __global__ void copy_interleaved(const float* x, float* y, unsigned int n) {
    unsigned int first = blockIdx.x * blockDim.x * CHUNK;
    for (unsigned int k = 0; k < CHUNK; ++k) {
        unsigned int i = first + k * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i];
    }
}
// ANCHOR_END: kernel
