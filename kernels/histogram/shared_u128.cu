/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_bytes.cu with sixteen bytes per thread per trip: eight blocks of
# 256 threads per SM at most, each thread loading one uint4 per trip.
[[launch]]
kernel = "hist_shared_u128"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The four bytes of a 32-bit word, each an atomic add on its bin.
__device__ __forceinline__ void count_word(unsigned int* local, unsigned int w) {
#pragma unroll
    for (int b = 0; b < 4; ++b) atomicAdd(&local[(w >> (8 * b)) & 0xffu], 1u);
}

// shared_bytes.cu's privatised histogram, reading sixteen bytes per load,
// then the last n % 16 bytes one at a time. Needs blockDim.x == 256.
// ANCHOR: kernel
extern "C" __global__ void hist_shared_u128(const unsigned char* __restrict__ x,
                                            unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
        const uint4 v = x16[i];
        count_word(local, v.x);
        count_word(local, v.y);
        count_word(local, v.z);
        count_word(local, v.w);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
