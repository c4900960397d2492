/*+++
problem = "sum_f32"
sizes = ["2^24", "2^28"]
# fold_strided_pad32.cu with a padding word after every 256 words, which
# for 256 threads is none: fold_strided_index.cu's layout with the
# padded kernel's instructions. Same launch as fold_strided_pad32.cu.
# Pass 2 (partials_sum.cuh) sums the partials. Both launches are timed
# together.
[scratch]
partials = "grid0"
[[launch]]
kernel = "fold_strided_pad256"
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
#define PAD 256

__device__ unsigned int padded(unsigned int w) {
    return w + w / PAD;
}

// The twin of fold_strided_pad32.cu: the same code with the padding word
// after every 256 words instead of every 32. In a 256-thread block no word
// of the fold reaches 256, so w + w / 256 is w, the layout is that of
// fold_strided_index.cu and so are its bank conflicts; but the padding is
// still computed, so the instructions executed are those of the padded
// kernel.
extern "C" __global__ void fold_strided_pad256(const float* x, float* partials, unsigned int n) {
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
