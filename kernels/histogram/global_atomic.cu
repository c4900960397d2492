/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^26"]
# A grid-stride loop, eight blocks of 256 threads per SM at most, one byte
# per thread per trip, one global atomic per byte. Not measured at 2^28:
# with every byte an atomic on one of 256 words, a run there takes long
# enough to slow the whole book's measuring, and 2^26 shows the same.
[[launch]]
kernel = "hist_global"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// Every byte is one atomic add on its bin in global memory: 256 words for
// all the GPU's threads. Atomics on global memory are carried out in L2;
// two on the same word cannot overlap.
// ANCHOR: kernel
extern "C" __global__ void hist_global(const unsigned char* __restrict__ x, unsigned int* bins,
                                       unsigned int n) {
    const unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&bins[x[i]], 1u);
    }
}
// ANCHOR_END: kernel
