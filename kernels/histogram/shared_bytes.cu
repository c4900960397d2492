/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# global_atomic.cu's launch: eight blocks of 256 threads per SM at most,
# one byte per thread per trip of a grid-stride loop.
[[launch]]
kernel = "hist_shared_bytes"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// Privatised: each block counts into its own 256 bins in shared memory,
// where an atomic is carried out by the SM and contends only with the
// block's own threads, and adds each bin into the global histogram once,
// at the end. Needs blockDim.x == 256: thread t zeroes and merges bin t.
// ANCHOR: kernel
extern "C" __global__ void hist_shared_bytes(const unsigned char* __restrict__ x,
                                             unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    const unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[x[i]], 1u);
    }
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
