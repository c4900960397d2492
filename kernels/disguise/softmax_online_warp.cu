/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^10", "2^14", "2^18"]
# One row per warp, eight warps (rows) per block. Meant for short rows
# (2^10): no block barrier, and the second read of a 4 KiB row hits cache.
[[launch]]
kernel = "softmax_online_warp"
grid = "ceil_div(rows, 8)"
block = 256
args = ["x", "y", "rows", "cols"]
+++*/

#include "rows_softmax.cuh"

// ANCHOR: warp_row
extern "C" __global__ void __launch_bounds__(256) softmax_online_warp(const float* __restrict__ x,
                                                                      float* __restrict__ y,
                                                                      unsigned int rows,
                                                                      unsigned int cols) {
    unsigned int lane = threadIdx.x % 32;
    unsigned int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    // A whole warp leaves together, and nothing below waits on the block.
    if (row >= rows) {
        return;
    }
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    bool vec = cols % 4 == 0;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    float4* y4 = reinterpret_cast<float4*>(yr);

    MaxSum s = {LOWEST, 0.0f};
    if (vec) {
        for (unsigned int i = lane; i < cols / 4; i += 32) {
            s = add4(s, x4[i]);
        }
    } else {
        for (unsigned int j = lane; j < cols; j += 32) {
            s = merge(s, {xr[j], 1.0f});
        }
    }
    // The butterfly leaves the row's (max, sum) in every lane: no shared
    // memory, no barrier.
    for (int offset = 16; offset > 0; offset /= 2) {
        MaxSum other = {__shfl_xor_sync(0xffffffffu, s.m, offset),
                        __shfl_xor_sync(0xffffffffu, s.d, offset)};
        s = merge(s, other);
    }

    float inv_d = 1.0f / s.d;
    if (vec) {
        for (unsigned int i = lane; i < cols / 4; i += 32) {
            float4 v = x4[i];
            y4[i] = make_float4(expf(v.x - s.m) * inv_d, expf(v.y - s.m) * inv_d,
                                expf(v.z - s.m) * inv_d, expf(v.w - s.m) * inv_d);
        }
    } else {
        for (unsigned int j = lane; j < cols; j += 32) {
            yr[j] = expf(xr[j] - s.m) * inv_d;
        }
    }
}
// ANCHOR_END: warp_row
