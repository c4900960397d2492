/*+++
problem = "histogram_u8_skewed"
sizes = ["2^24", "2^28"]
# 32 copies of the bins are 32 KiB a block: six blocks of 256 threads fit
# on an SM, and the grid is six per SM at most; each thread loads two
# uint4 per trip before counting either.
[[launch]]
kernel = "histogram"
grid = "min(ceil_div(n, 8192), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// 32 copies of the 256 bins per block, one per lane number: lane l of
// every warp counts into copy l, whose count v is word 32 v + l, in bank
// l. The 32 lanes of a warp then touch 32 different words in 32 banks,
// whatever their bytes. Needs blockDim.x == 256.

// The four bytes of w, each an atomic add on its count in copy l, whose
// byte offset 4 (32 v + l) is (v << 7) | offset with offset = 4 l: a
// shift and one LOP3 from w.
__device__ __forceinline__ void count_word(unsigned char* local, unsigned int w,
                                           unsigned int offset) {
#pragma unroll
    for (int b = 0; b < 4; ++b) {
        const unsigned int v = (w >> (8 * b)) & 0xffu;
        atomicAdd(reinterpret_cast<unsigned int*>(local + ((v << 7) | offset)), 1u);
    }
}

__device__ __forceinline__ void count_uint4(unsigned char* local, uint4 v, unsigned int offset) {
    count_word(local, v.x, offset);
    count_word(local, v.y, offset);
    count_word(local, v.z, offset);
    count_word(local, v.w, offset);
}

extern "C" __global__ void histogram(const unsigned char* __restrict__ x, unsigned int* bins,
                                     unsigned int n) {
    __shared__ unsigned int counts[256 * 32];
    // Unrolled: constant offsets keep the array's address out of the
    // atomics' arithmetic.
#pragma unroll
    for (unsigned int j = 0; j < 32; ++j) counts[j * 256 + threadIdx.x] = 0;
    __syncthreads();
    unsigned char* local = reinterpret_cast<unsigned char*>(counts);
    const unsigned int lane = threadIdx.x % 32;
    const unsigned int offset = 4 * lane;
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int i = first;
    for (; i + stride < n16; i += 2 * stride) {
        const uint4 a = x16[i], b = x16[i + stride];
        count_uint4(local, a, offset);
        count_uint4(local, b, offset);
    }
    if (i < n16) count_uint4(local, x16[i], offset);
    for (i = 16 * n16 + first; i < n; i += stride) atomicAdd(&counts[x[i] * 32 + lane], 1u);
    __syncthreads();
    // Thread t adds up the 32 copies of bin t, starting at copy t % 32 so
    // that the lanes of a warp read 32 different banks.
    unsigned int count = 0;
#pragma unroll
    for (unsigned int c = 0; c < 32; ++c) count += counts[threadIdx.x * 32 + (c + threadIdx.x) % 32];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
