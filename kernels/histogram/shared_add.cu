/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_u128.cu's launch: eight blocks of 256 threads per SM at most,
# each thread loading one uint4 per trip.
[[launch]]
kernel = "hist_shared_add"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The four bytes of a 32-bit word, each an atomic add of `one` on its bin.
__device__ __forceinline__ void count_word(unsigned int* local, unsigned int w, unsigned int one) {
#pragma unroll
    for (int b = 0; b < 4; ++b) atomicAdd(&local[(w >> (8 * b)) & 0xffu], one);
}

// shared_u128.cu, except that each atomic adds a value the compiler cannot
// see is 1: `one` is n != 0, which is 1 wherever a byte is counted. An add
// of a literal 1 compiles to ATOMS.POPC.INC, an add of a value to
// ATOMS.ADD; the two kernels differ in nothing else. Needs
// blockDim.x == 256.
// ANCHOR: kernel
extern "C" __global__ void hist_shared_add(const unsigned char* __restrict__ x,
                                           unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    const unsigned int one = n != 0;
    local[threadIdx.x] = 0;
    __syncthreads();
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
        const uint4 v = x16[i];
        count_word(local, v.x, one);
        count_word(local, v.y, one);
        count_word(local, v.z, one);
        count_word(local, v.w, one);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&local[x[i]], one);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
