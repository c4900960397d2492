/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^10", "2^14", "2^18"]
# One row per warp, eight warps (rows) per block. Meant for short rows
# (2^10): no block barrier, and the second read of a 4 KiB row hits cache.
[[launch]]
kernel = "layernorm_welford_warp"
grid = "ceil_div(rows, 8)"
block = 256
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

#include "rows_layernorm.cuh"

// ANCHOR: warp_row
extern "C" __global__ void __launch_bounds__(256) layernorm_welford_warp(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    unsigned int lane = threadIdx.x % 32;
    unsigned int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    // A whole warp leaves together, and nothing below waits on the block.
    if (row >= rows) {
        return;
    }
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    bool vec = cols % 4 == 0;

    Moments s = {0.0f, 0.0f, 0.0f};
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (unsigned int i = lane; i < cols / 4; i += 32) {
            float4 v = x4[i];
            s = add(add(add(add(s, v.x), v.y), v.z), v.w);
        }
    } else {
        for (unsigned int j = lane; j < cols; j += 32) {
            s = add(s, xr[j]);
        }
    }
    // The butterfly leaves the row's moments in every lane.
    for (int offset = 16; offset > 0; offset /= 2) {
        Moments other = {__shfl_xor_sync(0xffffffffu, s.n, offset),
                         __shfl_xor_sync(0xffffffffu, s.mean, offset),
                         __shfl_xor_sync(0xffffffffu, s.m2, offset)};
        s = merge(s, other);
    }

    float mean = s.mean;
    float rstd = rsqrtf(s.m2 / cols + eps);
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const float4* w4 = reinterpret_cast<const float4*>(weight);
        const float4* b4 = reinterpret_cast<const float4*>(bias);
        float4* y4 = reinterpret_cast<float4*>(yr);
        for (unsigned int i = lane; i < cols / 4; i += 32) {
            float4 v = x4[i], w = w4[i], b = b4[i];
            y4[i] = make_float4(fmaf((v.x - mean) * rstd, w.x, b.x), fmaf((v.y - mean) * rstd, w.y, b.y),
                                fmaf((v.z - mean) * rstd, w.z, b.z), fmaf((v.w - mean) * rstd, w.w, b.w));
        }
    } else {
        for (unsigned int j = lane; j < cols; j += 32) {
            yr[j] = fmaf((xr[j] - mean) * rstd, weight[j], bias[j]);
        }
    }
}
// ANCHOR_END: warp_row
