/*+++
problem = "sum_f32"
sizes = ["2^24", "2^28"]
# Pass 1: one element per thread, blocks of 256, the fold below; each block
# writes its partial to its own slot. Pass 2 (partials_sum.cuh) sums the
# partials. Both launches are timed together.
[scratch]
partials = "grid0"
[[launch]]
kernel = "fold_stride"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "partials", "n"]
[[launch]]
kernel = "sum_partials"
grid = "min(ceil_div(grid0, 256), sms * 4)"
block = 256
args = ["partials", "out", "grid0"]
+++*/

#include "partials_sum.cuh"

// reduce_stride (stride_tree.cu) writing a partial per block: in each
// round the first half of the live slots takes in the second half, so the
// threads at work are contiguous and whole warps are at work or idle.
extern "C" __global__ void fold_stride(const float* x, float* partials, unsigned int n) {
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (tid < half) {
            s[tid] += s[tid + half];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (tid == 0) {
        partials[blockIdx.x] = s[0];
    }
}
