/*+++
problem = "elementwise"
sizes = ["2^24"]
# CHUNK = 8 elements per thread as two float4s, 256 threads per block: a
# block copies 256 * 8 consecutive elements (the starter's launch); the
# n % 4 floats past the last float4 are copied by the first threads of
# block 0.
[[launch]]
kernel = "copy_interleaved_float4"
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
// The block's CHUNK * blockDim.x elements as float4s: on pass k thread t
// copies float4 number k * blockDim.x + t of them, one 16-byte load and one
// 16-byte store, so a warp's request covers 512 neighbouring bytes.
extern "C" __global__ void copy_interleaved_float4(const float* x, float* y, unsigned int n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    unsigned int first = blockIdx.x * blockDim.x * (CHUNK / 4);
    for (unsigned int k = 0; k < CHUNK / 4; ++k) {
        unsigned int j = first + k * blockDim.x + threadIdx.x;
        if (j < n / 4) y4[j] = x4[j];
    }
    // The tail: at most three floats.
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        unsigned int i = 4 * (n / 4) + threadIdx.x;
        y[i] = x[i];
    }
}
// ANCHOR_END: kernel
