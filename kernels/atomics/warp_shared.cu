/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24"]
# shared_atomics.cu with the warp step of warp_aggregated.cu in front: each
# warp adds its 32 elements with shuffles, lane 0 adds the warp's sum to the
# block's shared float (8 updates of it per block of 256), and after a
# barrier thread 0 adds the block's total to out (n / 256 global updates).
[[launch]]
kernel = "sum_warp_shared"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "out", "n"]
+++*/

// ANCHOR: kernel
extern "C" __global__ void sum_warp_shared(const float* __restrict__ x, float* __restrict__ out,
                                           unsigned int n) {
    __shared__ float block_total;
    if (threadIdx.x == 0) {
        block_total = 0.0f;
    }
    __syncthreads();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&block_total, v);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(out, block_total);
    }
}
// ANCHOR_END: kernel
