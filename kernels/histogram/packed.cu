/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# 32 copies of the bins in 16-bit halves of words: 16 KiB a block, so eight
# blocks of 256 threads fit on an SM, and the grid is eight per SM at most;
# one uint4 per thread per trip.
[[launch]]
kernel = "hist_packed"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// lane_offsets.cu's 32 copies, one per lane number, with each count 16 bits
// wide: the counts of bins 2u and 2u + 1 of copy l share word 32 u + l (in
// bank l), the even bin in the low half. Half the shared memory, so a third
// more blocks per SM, but an increment is now 1 or 65536, which the
// hardware cannot merge across lanes as it merges a plain increment by 1,
// and a count must be emptied before it can pass 65535: every CHUNK trips
// the block stops, each thread adds the 32 halves of its bin into a 32-bit
// total in a register, and the block zeroes the counts. A trip adds at most
// 16 to one count of each of the 8 warps' lanes, so a count stays below
// 8 * 16 * CHUNK. Needs blockDim.x == 256.
#define CHUNK 32

// ANCHOR: kernel
__device__ __forceinline__ void count_word(unsigned char* local, unsigned int w,
                                           unsigned int offset) {
#pragma unroll
    for (int b = 0; b < 4; ++b) {
        const unsigned int v = (w >> (8 * b)) & 0xffu;
        // Word (v / 2) * 32 + lane, at byte (v / 2) * 128 + 4 * lane.
        atomicAdd(reinterpret_cast<unsigned int*>(local + (((v >> 1) * 128) | offset)),
                  1u << (16 * (v & 1)));
    }
}

extern "C" __global__ void hist_packed(const unsigned char* __restrict__ x,
                                       unsigned int* bins, unsigned int n) {
    __shared__ unsigned int counts[128 * 32];
#pragma unroll
    for (unsigned int j = 0; j < 16; ++j) counts[j * 256 + threadIdx.x] = 0;
    __syncthreads();
    unsigned char* local = reinterpret_cast<unsigned char*>(counts);
    const unsigned int offset = 4 * (threadIdx.x % 32);
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    // Trips of the block's thread 0, which has the most: the number of
    // chunks is the same for every thread, as the barriers need.
    const unsigned int block_first = blockIdx.x * blockDim.x;
    const unsigned int trips = block_first < n16 ? (n16 - block_first + stride - 1) / stride : 0;
    unsigned int total = 0;
    unsigned int i = first;
    for (unsigned int done = 0; done < trips; done += CHUNK) {
        for (unsigned int t = 0; t < CHUNK && i < n16; ++t, i += stride) {
            const uint4 v = x16[i];
            count_word(local, v.x, offset);
            count_word(local, v.y, offset);
            count_word(local, v.z, offset);
            count_word(local, v.w, offset);
        }
        __syncthreads();
        // Bin b's halves lie in words (b / 2) * 32 + c; starting at c = b
        // puts the lanes of a warp in different banks.
        const unsigned int row = (threadIdx.x / 2) * 32, shift = 16 * (threadIdx.x % 2);
#pragma unroll
        for (unsigned int c = 0; c < 32; ++c) total += (counts[row + (c + threadIdx.x) % 32] >> shift) & 0xffffu;
        __syncthreads();
#pragma unroll
        for (unsigned int j = 0; j < 16; ++j) counts[j * 256 + threadIdx.x] = 0;
        __syncthreads();
    }
    // The last n % 16 bytes (at most 15 in the whole grid) straight into
    // the global bins.
    for (i = 16 * n16 + first; i < n; i += stride) atomicAdd(&bins[x[i]], 1u);
    if (total != 0) atomicAdd(&bins[threadIdx.x], total);
}
// ANCHOR_END: kernel
