/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# lane_copies.cu's launch: six blocks of 256 threads per SM at most (32
# copies of the bins are 32 KiB a block), one uint4 per thread per trip.
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// lane_copies.cu's histogram with the same copies, its address arithmetic
// written in bytes, and three parameters for the chapter's sweeps (other
// files include this one and define them):
//   COPIES  copies of the 256 bins per block (a power of two up to 32):
//           lane l counts into copy l % COPIES;
//   LOADS   uint4 loads each thread issues per trip before counting any;
//   (the blocks per SM are the launch's, in each file's header).
// Needs blockDim.x == 256.
#ifndef COPIES
#define COPIES 32
#endif
#ifndef LOADS
#define LOADS 1
#endif

// ANCHOR: kernel
// Count v of copy c is word v * COPIES + c, which lies in bank c when
// COPIES is 32.
#define SLOT(v, lane) ((v) * COPIES + (lane) % COPIES)

// The four bytes of w, each an atomic add on its count in this thread's
// copy. `offset` is the copy's byte offset, 4 * (lane % COPIES); the
// count's byte offset 4 * SLOT(v, lane) is then (v * 4 * COPIES) | offset,
// which the compiler makes in two integer instructions from w (a shift,
// and one LOP3 for the mask and the OR), where the word index SLOT(v, lane)
// times 4 takes it four (lane_copies.cu).
__device__ __forceinline__ void count_word(unsigned char* local, unsigned int w,
                                           unsigned int offset) {
#pragma unroll
    for (int b = 0; b < 4; ++b) {
        const unsigned int v = (w >> (8 * b)) & 0xffu;
        atomicAdd(reinterpret_cast<unsigned int*>(local + ((v * 4 * COPIES) | offset)), 1u);
    }
}

extern "C" __global__ void hist_lane_offsets(const unsigned char* __restrict__ x,
                                             unsigned int* bins, unsigned int n) {
    __shared__ unsigned int counts[256 * COPIES];
    // Unrolled, with constant offsets: a loop here would keep the array's
    // address in a register, and every atomic below would add it again.
#pragma unroll
    for (unsigned int j = 0; j < COPIES; ++j) counts[j * 256 + threadIdx.x] = 0;
    __syncthreads();
    unsigned char* local = reinterpret_cast<unsigned char*>(counts);
    const unsigned int offset = 4 * (threadIdx.x % COPIES);
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int i = first;
    // LOADS loads in flight per thread, stride apart, then their counts.
    for (; i + (LOADS - 1) * stride < n16; i += LOADS * stride) {
        uint4 v[LOADS];
#pragma unroll
        for (int j = 0; j < LOADS; ++j) v[j] = x16[i + j * stride];
#pragma unroll
        for (int j = 0; j < LOADS; ++j) {
            count_word(local, v[j].x, offset);
            count_word(local, v[j].y, offset);
            count_word(local, v[j].z, offset);
            count_word(local, v[j].w, offset);
        }
    }
    for (; i < n16; i += stride) {
        const uint4 v = x16[i];
        count_word(local, v.x, offset);
        count_word(local, v.y, offset);
        count_word(local, v.z, offset);
        count_word(local, v.w, offset);
    }
    for (i = 16 * n16 + first; i < n; i += stride) atomicAdd(&counts[SLOT(x[i], threadIdx.x)], 1u);
    __syncthreads();
    // Thread t adds up the COPIES copies of bin t, starting at copy t so
    // that the lanes of a warp read different banks.
    unsigned int count = 0;
#pragma unroll
    for (unsigned int c = 0; c < COPIES; ++c) count += counts[SLOT(threadIdx.x, c + threadIdx.x)];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
