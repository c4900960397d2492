/*+++
problem = "elementwise"
sizes = ["2^20", "2^24", "2^28"]
# A stream copy: a grid-stride loop of float4 loads and stores, 256
# threads per block, 8 blocks per SM (as many threads as an SM holds), each
# thread moving several float4 per pass with its loads issued together.
[[launch]]
kernel = "copy"
grid = "sms * 8"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

// ANCHOR: kernel
#define UNROLL 4

extern "C" __global__ void copy(const float* __restrict__ x, float* __restrict__ y,
                                unsigned int n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    unsigned int n4 = n / 4;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // UNROLL loads in flight per thread before the first store.
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) v[k] = x4[i + k * stride];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) y4[i + k * stride] = v[k];
    }
    for (; i < n4; i += stride) y4[i] = x4[i];
    // The last n % 4 elements, one thread each.
    unsigned int t = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = x[t];
}
// ANCHOR_END: kernel
