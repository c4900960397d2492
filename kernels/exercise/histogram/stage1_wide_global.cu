/*+++
problem = "histogram_u8_skewed"
sizes = ["2^24"]
# Eight blocks of 256 threads per SM at most, one uint4 per thread per trip.
[[launch]]
kernel = "histogram"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// A control that changes what stage 2 changes instead of what stage 1
// does: sixteen bytes per load, still one global atomic per byte.
extern "C" __global__ void histogram(const unsigned char* __restrict__ x, unsigned int* bins,
                                     unsigned int n) {
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
        const uint4 v = x16[i];
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 16; ++k) atomicAdd(&bins[(words[k / 4] >> (8 * (k % 4))) & 0xffu], 1u);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&bins[x[i]], 1u);
}
