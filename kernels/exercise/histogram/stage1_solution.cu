/*+++
problem = "histogram_u8_skewed"
sizes = ["2^24", "2^28"]
# The starter's launch: eight blocks of 256 threads per SM at most, one
# byte per thread per trip.
[[launch]]
kernel = "histogram"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// Each block counts into its own 256 bins in shared memory, then adds
// each of them into the global bins once. Needs blockDim.x == 256: thread
// t zeroes and merges bin t.
extern "C" __global__ void histogram(const unsigned char* __restrict__ x, unsigned int* bins,
                                     unsigned int n) {
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
