/*+++
problem = "histogram_u8_skewed"
sizes = ["2^24"]
# Eight blocks of 256 threads per SM at most, in a grid-stride loop, one
# byte per thread per trip.
[[launch]]
kernel = "histogram"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// One atomic add on the global bins per byte. Seven eighths of the bytes
// are 0, so seven eighths of the atomics land on bins[0].
extern "C" __global__ void histogram(const unsigned char* __restrict__ x, unsigned int* bins,
                                     unsigned int n) {
    const unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&bins[x[i]], 1u);
    }
}
