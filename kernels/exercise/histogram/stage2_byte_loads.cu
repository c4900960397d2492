/*+++
problem = "histogram_u8_skewed"
sizes = ["2^28"]
# Eight blocks of 256 threads per SM at most, sixteen neighbouring bytes
# per thread per trip, each loaded on its own.
[[launch]]
kernel = "histogram"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The pitfall: sixteen bytes per thread per trip, as sixteen one-byte
// loads. Needs blockDim.x == 256.
extern "C" __global__ void histogram(const unsigned char* __restrict__ x, unsigned int* bins,
                                     unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    const unsigned int n16 = n / 16;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n16; i += stride) {
#pragma unroll
        for (int k = 0; k < 16; ++k) atomicAdd(&local[x[16 * i + k]], 1u);
    }
    for (unsigned int i = 16 * n16 + first; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
