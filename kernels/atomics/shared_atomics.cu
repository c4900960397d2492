/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24"]
# One thread per element in blocks of 256. Every thread adds its element to
# one float in the block's shared memory with an atomicAdd (256 updates of
# one shared address per block); after a barrier, thread 0 adds the block's
# total to out: n / 256 updates of the global address.
[[launch]]
kernel = "sum_shared_atomics"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "out", "n"]
+++*/

// ANCHOR: kernel
extern "C" __global__ void sum_shared_atomics(const float* __restrict__ x, float* __restrict__ out,
                                              unsigned int n) {
    __shared__ float block_total;
    if (threadIdx.x == 0) {
        block_total = 0.0f;
    }
    __syncthreads();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&block_total, x[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(out, block_total);
    }
}
// ANCHOR_END: kernel
