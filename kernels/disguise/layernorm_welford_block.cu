/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^10", "2^14", "2^18"]
# One block per row, one float4 per thread per trip, at most 1024 threads.
[[launch]]
kernel = "layernorm_welford_block"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 128))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// Welford's update keeps a running mean and the sum of squared deviations
// from it (m2), so no large term is ever subtracted from another. Partials
// from different threads combine with the formula of Chan, Golub and
// LeVeque. x is read twice: once for the statistics, once to normalise.

#include "rows_layernorm.cuh"

extern "C" __global__ void __launch_bounds__(1024) layernorm_welford_block(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4.
    bool vec = cols % 4 == 0;

    // ANCHOR: sweep
    Moments s = {0.0f, 0.0f, 0.0f};
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i];
            s = add(add(add(add(s, v.x), v.y), v.z), v.w);
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            s = add(s, xr[j]);
        }
    }
    s = block_merge(s);
    // ANCHOR_END: sweep

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = s.mean;
    float rstd = rsqrtf(s.m2 / cols + eps);
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const float4* w4 = reinterpret_cast<const float4*>(weight);
        const float4* b4 = reinterpret_cast<const float4*>(bias);
        float4* y4 = reinterpret_cast<float4*>(yr);
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i], w = w4[i], b = b4[i];
            y4[i] = make_float4(fmaf((v.x - mean) * rstd, w.x, b.x), fmaf((v.y - mean) * rstd, w.y, b.y),
                                fmaf((v.z - mean) * rstd, w.z, b.z), fmaf((v.w - mean) * rstd, w.w, b.w));
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            yr[j] = fmaf((xr[j] - mean) * rstd, weight[j], bias[j]);
        }
    }
}
