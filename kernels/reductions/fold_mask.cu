/*+++
problem = "sum_f32"
sizes = ["2^24", "2^28"]
# Pass 1: one element per thread, blocks of 256, the fold below; each block
# writes its partial to its own slot. Pass 2 (partials_sum.cuh) sums the
# partials. Both launches are timed together.
[scratch]
partials = "grid0"
[[launch]]
kernel = "fold_mask"
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

// fold_mod with the remainder replaced by a mask: the same threads add in
// every round (2 * stride is a power of two, so tid % (2 * stride) == 0
// exactly when tid & (2 * stride - 1) == 0), the same lanes of each warp
// sit idle, but no division sequence decides it.
extern "C" __global__ void fold_mask(const float* x, float* partials, unsigned int n) {
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if ((tid & (2 * stride - 1)) == 0) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (tid == 0) {
        partials[blockIdx.x] = s[0];
    }
}
