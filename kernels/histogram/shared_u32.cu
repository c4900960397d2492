/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# shared_bytes.cu with four bytes per thread per trip: eight blocks of 256
# threads per SM at most, each thread loading one uchar4 per trip.
[[launch]]
kernel = "hist_shared_u32"
grid = "min(ceil_div(n, 1024), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// shared_bytes.cu's privatised histogram, reading four bytes per load (the
// buffer is aligned for any type), then the last n % 4 bytes one at a
// time. Needs blockDim.x == 256.
// ANCHOR: kernel
extern "C" __global__ void hist_shared_u32(const unsigned char* __restrict__ x,
                                           unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    const uchar4* x4 = reinterpret_cast<const uchar4*>(x);
    const unsigned int n4 = n / 4;
    const unsigned int stride = gridDim.x * blockDim.x;
    const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = first; i < n4; i += stride) {
        const uchar4 v = x4[i];
        atomicAdd(&local[v.x], 1u);
        atomicAdd(&local[v.y], 1u);
        atomicAdd(&local[v.z], 1u);
        atomicAdd(&local[v.w], 1u);
    }
    for (unsigned int i = 4 * n4 + first; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    const unsigned int count = local[threadIdx.x];
    if (count != 0) atomicAdd(&bins[threadIdx.x], count);
}
// ANCHOR_END: kernel
