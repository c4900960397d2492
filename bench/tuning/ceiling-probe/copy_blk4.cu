/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
[[launch]]
kernel = "copy_blk4"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n"]
[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/
// Four float4 per thread, block-contiguous (each load coalesced), all four in flight.
extern "C" __global__ void copy_blk4(const float* __restrict__ x, float* __restrict__ y, unsigned int n) {
    const float4* src = reinterpret_cast<const float4*>(x);
    float4* dst = reinterpret_cast<float4*>(y);
    unsigned long long n4 = n / 4;
    unsigned long long base = (unsigned long long)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        unsigned long long i = base + k * blockDim.x;
        if (i < n4) v[k] = src[i];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        unsigned long long i = base + k * blockDim.x;
        if (i < n4) dst[i] = v[k];
    }
    if (blockIdx.x == 0)
        for (unsigned long long j = 4 * n4 + threadIdx.x; j < n; j += blockDim.x) y[j] = x[j];
}
