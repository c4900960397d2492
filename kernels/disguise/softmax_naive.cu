/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^14"]
# Meant to fail: exp(x) of the test rows (around 50 to 108) overflows float32.
expect = "wrong"
# One block per row, one float4's worth of columns per thread, at most 1024.
[[launch]]
kernel = "softmax_naive"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 128))"
args = ["x", "y", "rows", "cols"]
+++*/

// The sum of v over the block, returned to every thread. blockDim.x must be
// a multiple of 32; every thread must call it, and only once per block (its
// shared slots are not fenced for reuse).
__device__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    // Every warp folds the per-warp sums itself, so no second barrier is
    // needed to hand the total back.
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
}

// ANCHOR: naive
// softmax straight from the definition: exp(x) / sum(exp(x)). Mathematically
// right, numerically not: expf returns infinity for x above 88.7, and then
// the row becomes inf / inf = NaN or x / inf = 0.
extern "C" __global__ void __launch_bounds__(1024) softmax_naive(const float* __restrict__ x,
                                                                 float* __restrict__ y,
                                                                 unsigned int rows,
                                                                 unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;

    float sum = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        sum += expf(xr[j]);
    }
    sum = block_sum(sum);

    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        yr[j] = expf(xr[j]) / sum;
    }
}
// ANCHOR_END: naive
