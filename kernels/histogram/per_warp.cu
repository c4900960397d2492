/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_u128.cu's launch: eight blocks of 256 threads (8 warps) per SM at
# most, one uint4 per thread per trip.
[[launch]]
kernel = "hist_per_warp"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

#define WARPS 8

// shared_u128.cu with one 256-bin sub-histogram per warp (8 KiB a block):
// two warps of a block never add into the same word. The 32 lanes of one
// warp still share their warp's bins. Needs blockDim.x == 256.
// ANCHOR: kernel
extern "C" __global__ void hist_per_warp(const unsigned char* __restrict__ x,
                                         unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[WARPS][256];
    for (int w = 0; w < WARPS; ++w) local[w][threadIdx.x] = 0;
    __syncthreads();
    unsigned int* mine = local[threadIdx.x / 32];
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
        const uint4 v = x16[i];
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 16; ++k) atomicAdd(&mine[(words[k / 4] >> (8 * (k % 4))) & 0xffu], 1u);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&mine[x[i]], 1u);
    __syncthreads();
    unsigned int count = 0;
    for (int w = 0; w < WARPS; ++w) count += local[w][threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
