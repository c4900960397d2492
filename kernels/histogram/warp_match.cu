/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_u128.cu's launch: eight blocks of 256 threads per SM at most, one
# uint4 per thread per trip, trips taken by whole warps.
[[launch]]
kernel = "hist_warp_match"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// shared_u128.cu with the atomics aggregated in the warp: for each of its
// 16 bytes, the warp finds which lanes hold the same value
// (__match_any_sync), and the lowest of them adds their number to the bin,
// so a value held by 28 lanes is one atomic instead of 28. The loop runs
// whole warps (lanes past the end hold no value), since __match_any_sync
// needs all 32 lanes. Needs blockDim.x == 256.
// ANCHOR: kernel
__device__ __forceinline__ void count_aggregated(unsigned int* local, unsigned int v,
                                                 unsigned int lane) {
    const unsigned int same = __match_any_sync(0xffffffffu, v);
    if (v < 256 && lane == __ffs(same) - 1) atomicAdd(&local[v], __popc(same));
}

extern "C" __global__ void hist_warp_match(const unsigned char* __restrict__ x,
                                           unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    const unsigned int lane = threadIdx.x % 32;
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    // The first uint4 of this thread's warp: trips are taken by the warp.
    const unsigned int warp_first = blockIdx.x * blockDim.x + threadIdx.x - lane;
    for (unsigned int w = warp_first; w < n16; w += stride) {
        const unsigned int i = w + lane;
        const bool valid = i < n16;
        const uint4 v = valid ? x16[i] : make_uint4(0, 0, 0, 0);
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            const unsigned int b = (words[k / 4] >> (8 * (k % 4))) & 0xffu;
            count_aggregated(local, valid ? b : 256u, lane);
        }
    }
    for (unsigned int i = 16 * n16 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
