/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^10", "2^14", "2^18"]
# One block per row, one float4's worth of columns per thread, at most 1024.
[[launch]]
kernel = "softmax_three_pass"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 128))"
args = ["x", "y", "rows", "cols"]
+++*/

// The safe softmax as it is usually first written: three sweeps over the
// row, each reading x again. Only the third writes.

// The block-wide max, returned to every thread: block_sum of
// rows_softmax.cuh, included below, with fmaxf for + (lanes past the
// block's warps take warp 0's max, which changes nothing). Each has its own
// shared slots, so the kernel may call each of them once. blockDim.x must be
// a multiple of 32.
__device__ float block_max(float v) {
    __shared__ float warp_max[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    if (lane == 0) {
        warp_max[warp] = v;
    }
    __syncthreads();
    v = lane < blockDim.x / 32 ? warp_max[lane] : warp_max[0];
    for (int offset = 16; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    return v;
}

#include "rows_softmax.cuh"

// ANCHOR: three_pass
extern "C" __global__ void __launch_bounds__(1024) softmax_three_pass(const float* __restrict__ x,
                                                                      float* __restrict__ y,
                                                                      unsigned int rows,
                                                                      unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;

    // Pass 1: the row's max. Subtracting it makes every exponent <= 0, so
    // exp never overflows and the largest term is exactly 1.
    float m = -3.402823466e38f;
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        m = fmaxf(m, xr[j]);
    }
    m = block_max(m);

    // Pass 2: the denominator.
    float d = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        d += expf(xr[j] - m);
    }
    d = block_sum(d);

    // Pass 3: one division per thread, then a multiply per element.
    float inv_d = 1.0f / d;
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        yr[j] = expf(xr[j] - m) * inv_d;
    }
}
// ANCHOR_END: three_pass
