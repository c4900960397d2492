/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^14"]
# Meant to fail: var = E[x^2] - mean^2 cancels catastrophically in float32
# when the mean (here 250 to 1000) is large against the spread (about 0.6).
expect = "wrong"
# One block per row, one float4's worth of columns per thread, at most 1024.
[[launch]]
kernel = "layernorm_two_moment"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 128))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// The textbook one-pass variance: sum x and sum x^2 together, then
// var = E[x^2] - E[x]^2. With x near 1000, x^2 is near 10^6, where a float
// is only good to about 0.06, while the variance is about 0.33: the
// difference of the two large terms is mostly rounding error, and can even
// come out negative.

// The sums of v.x and v.y over the block, returned to every thread. Call
// once per block; blockDim.x must be a multiple of 32.
__device__ float2 block_sum2(float2 v) {
    __shared__ float2 warp_sums[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, offset);
        v.y += __shfl_xor_sync(0xffffffffu, v.y, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    v = lane < blockDim.x / 32 ? warp_sums[lane] : make_float2(0.0f, 0.0f);
    for (int offset = 16; offset > 0; offset /= 2) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, offset);
        v.y += __shfl_xor_sync(0xffffffffu, v.y, offset);
    }
    return v;
}

// ANCHOR: two_moment
extern "C" __global__ void __launch_bounds__(1024) layernorm_two_moment(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;

    float2 sums = make_float2(0.0f, 0.0f);  // (sum of x, sum of x^2)
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        float v = xr[j];
        sums.x += v;
        sums.y += v * v;
    }
    sums = block_sum2(sums);

    float mean = sums.x / cols;
    float var = sums.y / cols - mean * mean;  // the cancellation
    float rstd = rsqrtf(var + eps);
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
        yr[j] = (xr[j] - mean) * rstd * weight[j] + bias[j];
    }
}
// ANCHOR_END: two_moment
