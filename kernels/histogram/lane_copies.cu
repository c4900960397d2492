/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_u128.cu's loop, one uint4 per thread per trip, with 32 copies of
# the bins per block (32 KiB): six blocks of 256 threads fit on an SM, and
# the grid is six per SM at most.
[[launch]]
kernel = "hist_lane_copies"
grid = "min(ceil_div(n, 4096), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// shared_u128.cu with 32 copies of the 256 bins per block, one per lane
// number: lane l of every warp counts into copy l. Count v of copy l is
// word 32 v + l, in bank l: the 32 lanes of a warp always touch 32
// different words in 32 different banks, whatever their bytes. Needs
// blockDim.x == 256.
// ANCHOR: kernel
#define SLOT(v, lane) ((v) * 32 + (lane))
extern "C" __global__ void hist_lane_copies(const unsigned char* __restrict__ x,
                                            unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256 * 32];
    for (unsigned int j = threadIdx.x; j < 256 * 32; j += 256) local[j] = 0;
    __syncthreads();
    const unsigned int lane = threadIdx.x % 32;
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
        const uint4 v = x16[i];
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 16; ++k) atomicAdd(&local[SLOT((words[k / 4] >> (8 * (k % 4))) & 0xffu, lane)], 1u);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&local[SLOT(x[i], lane)], 1u);
    __syncthreads();
    // Thread t adds up the 32 copies of bin t, starting at copy t % 32 so
    // that the 32 lanes of a warp read 32 different banks.
    unsigned int count = 0;
    for (unsigned int c = 0; c < 32; ++c) count += local[SLOT(threadIdx.x, (c + threadIdx.x) % 32)];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
