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

#include "rows_softmax.cuh"

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
