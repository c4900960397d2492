/*+++
problem = "elementwise"
sizes = ["2^24", "2^28"]
# One float4 (four elements) per thread, 256 per block; the n % 4 floats
# past the last float4 are copied by the first threads of block 0.
[[launch]]
kernel = "copy_float4"
grid = "max(ceil_div(n, 4 * 256), 1)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

// ANCHOR: kernel
// Thread j copies float4 number j (elements 4j to 4j + 3): one 16-byte load
// and one 16-byte store, 512 contiguous bytes for a warp's request. Every
// buffer is allocated aligned, so element 4j is 16-byte aligned.
extern "C" __global__ void copy_float4(const float* x, float* y, unsigned int n) {
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n / 4) {
        reinterpret_cast<float4*>(y)[j] = reinterpret_cast<const float4*>(x)[j];
    }
    // The tail: at most three floats.
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        unsigned int i = 4 * (n / 4) + threadIdx.x;
        y[i] = x[i];
    }
}
// ANCHOR_END: kernel
