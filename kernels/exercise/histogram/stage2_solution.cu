/*+++
problem = "histogram_u8_skewed"
sizes = ["2^24", "2^28"]
# Eight blocks of 256 threads per SM at most, one uint4 (16 bytes) per
# thread per trip.
[[launch]]
kernel = "histogram"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// Stage 1's privatised histogram, reading sixteen bytes per load (the
// buffer is aligned for any type), then the last n % 16 bytes one at a
// time. Needs blockDim.x == 256.
extern "C" __global__ void histogram(const unsigned char* __restrict__ x, unsigned int* bins,
                                     unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
        const uint4 v = x16[i];
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 16; ++k) atomicAdd(&local[(words[k / 4] >> (8 * (k % 4))) & 0xffu], 1u);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
