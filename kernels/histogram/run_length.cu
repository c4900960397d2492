/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_u128.cu's launch: eight blocks of 256 threads per SM at most, one
# uint4 per thread per trip.
[[launch]]
kernel = "hist_run_length"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// shared_u128.cu with the atomics aggregated in the thread, as CUB's
// DeviceHistogram does by default: a thread walks its 16 bytes in order
// and adds each run of equal bytes with one atomic, so sixteen zeros in a
// row are one atomic add of 16. Needs blockDim.x == 256.
// ANCHOR: kernel
extern "C" __global__ void hist_run_length(const unsigned char* __restrict__ x,
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
        const unsigned int words[4] = {v.x, v.y, v.z, v.w};
        unsigned int run_value = words[0] & 0xffu, run = 1;
#pragma unroll
        for (int k = 1; k < 16; ++k) {
            const unsigned int b = (words[k / 4] >> (8 * (k % 4))) & 0xffu;
            if (b == run_value) {
                ++run;
            } else {
                atomicAdd(&local[run_value], run);
                run_value = b;
                run = 1;
            }
        }
        atomicAdd(&local[run_value], run);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
