/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24", "2^28"]
# The launch of fast_reduce.cu: at most two 1024-thread blocks per SM,
# rounded down to a power of two.
[[launch]]
kernel = "rung_scalar"
grid = "min(ceil_div(n, 4096), pow2_floor(sms * 2))"
block = 1024
args = ["input", "out", "n"]
+++*/

#include "block_sum.cuh"

// The first rung from the tree kernels to fast_reduce: a grid of a few
// blocks per SM instead of one block per 256 elements, each thread adding
// up elements a grid apart, one 4-byte load at a time, then one block sum
// and one atomic per block.
extern "C" __global__ void rung_scalar(const float* __restrict__ x, float* __restrict__ out,
                                       unsigned int n) {
    // ANCHOR: loop
    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sum += x[i];
    }
    // ANCHOR_END: loop
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        atomicAdd(out, total);
    }
}
