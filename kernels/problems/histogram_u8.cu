/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# Eight blocks per SM at most, each looping over the input; 256 threads,
# one per bin of the block's private histogram.
[[launch]]
kernel = "histogram_shared"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The histogram of n bytes into 256 bins, privatised: each block counts
// into its own 256 bins in shared memory (shared-memory atomics, which
// contend only within the block), then adds each of them into the global
// bins once. Needs blockDim.x == 256 (one bin per thread). The problem
// sets the global bins to 0 before every run.
// ANCHOR: privatised
extern "C" __global__ void histogram_shared(const unsigned char* __restrict__ x,
                                            unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    // Sixteen bytes per load (the buffer is aligned for any type).
    const unsigned int n16 = n / 16;
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const uint4 v = x16[i];
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int w = 0; w < 4; ++w) {
#pragma unroll
            for (int b = 0; b < 4; ++b) atomicAdd(&local[(words[w] >> (8 * b)) & 0xffu], 1u);
        }
    }
    // The last n % 16 bytes, one at a time.
    for (unsigned int i = 16 * n16 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[x[i]], 1u);
    }
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: privatised
