/*+++
problem = "sum_f32"
sizes = ["2^24", "2^28"]
# fold_strided_index.cu with a padded layout: a padding word after every
# 32 words of the fold, so 264 words of shared memory for 256 threads.
# fold_strided_pad256.cu has the same launch and the same instructions.
# Pass 2 (partials_sum.cuh) sums the partials. Both launches are timed
# together.
[scratch]
partials = "grid0"
[[launch]]
kernel = "fold_strided_pad32"
grid = "ceil_div(n, 256)"
block = 256
shared = "(256 + 256 / 32) * 4"
args = ["input", "partials", "n"]
[[launch]]
kernel = "sum_partials"
grid = "min(ceil_div(grid0, 256), sms * 4)"
block = 256
args = ["partials", "out", "grid0"]
+++*/

#include "partials_sum.cuh"

// Where word w of the fold is stored: one padding word after every PAD.
#define PAD 32

__device__ unsigned int padded(unsigned int w) {
    return w + w / PAD;
}

// fold_strided_index's pairing and index arithmetic with one padding word
// after every 32: word w of the fold is stored at w + w / 32. A warp's
// lanes touch words 2 * stride * k and 2 * stride * k + stride, and the
// padding moves each run of 32 words one bank further, so that the words a
// warp touches in one access fall in distinct banks in every round. The
// instructions are those of fold_strided_pad256.cu, whose padding word
// comes only after every 256 words, none inside a 256-thread block: the
// two kernels differ in where the words lie, not in what they execute.
extern "C" __global__ void fold_strided_pad32(const float* x, float* partials, unsigned int n) {
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    s[padded(tid)] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned int index = 2 * stride * tid;
        if (index < blockDim.x) {
            s[padded(index)] += s[padded(index + stride)];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (tid == 0) {
        partials[blockIdx.x] = s[0];
    }
}
