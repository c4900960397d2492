/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows of up to 1024 floats: a warp holds the row in registers
# (32 floats per lane), eight warps (rows) per block, no block barrier.
sizes = ["2^10"]
[[launch]]
kernel = "softmax_warp_cached"
grid = "ceil_div(rows, 8)"
block = 256
args = ["x", "y", "rows", "cols"]
+++*/

// softmax_cached_block with the block taken away: at N = 1024 a block of
// that kernel is a single warp, and it still pays for a shared-memory
// exchange and a __syncthreads(). Here a warp owns a row, finds its max and
// sum with shuffles alone, and eight rows share a block so that the SM
// schedules fewer, larger blocks. Rows longer than 1024 floats (or not a
// multiple of 4) take a general path that reads the row twice.

#define VEC_PER_LANE 8                  // float4 loads per lane
#define PER_LANE (4 * VEC_PER_LANE)     // floats held per lane
#define CAP (32 * PER_LANE)             // floats a warp holds: 1024

#include "rows_softmax.cuh"

extern "C" __global__ void __launch_bounds__(256) softmax_warp_cached(const float* __restrict__ x,
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

    if (cols <= CAP && cols % 4 == 0) {
        // ANCHOR: registers
        // Every load is issued before any is used: 128 bytes in flight per
        // lane. Lane l holds float4 number l + 32 k, so each load of the
        // warp is 512 contiguous bytes.
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float v[PER_LANE];
#pragma unroll
        for (int k = 0; k < VEC_PER_LANE; ++k) {
            unsigned int i = lane + 32 * k;
            float4 t = i < cols / 4 ? x4[i] : make_float4(PAD, PAD, PAD, PAD);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
        float m = LOWEST;
#pragma unroll
        for (int k = 0; k < PER_LANE; ++k) {
            m = fmaxf(m, v[k]);
        }
        float d = 0.0f;
#pragma unroll
        for (int k = 0; k < PER_LANE; ++k) {
            v[k] = expf(v[k] - m);
            d += v[k];
        }
        MaxSum r = warp_merge({m, d});
        // exp(x - M) = exp(x - m) * exp(m - M): one factor per lane.
        float scale = expf(m - r.m) / r.d;
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < VEC_PER_LANE; ++k) {
            unsigned int i = lane + 32 * k;
            if (i < cols / 4) {
                y4[i] = make_float4(v[4 * k] * scale, v[4 * k + 1] * scale,
                                    v[4 * k + 2] * scale, v[4 * k + 3] * scale);
            }
        }
        // ANCHOR_END: registers
        return;
    }

    // General path: an online max-and-sum over the row, then the output.
    MaxSum s = {LOWEST, 0.0f};
    for (unsigned int j = lane; j < cols; j += 32) {
        float v = xr[j];
        if (v > s.m) {
            s.d = s.d * expf(s.m - v) + 1.0f;
            s.m = v;
        } else {
            s.d += expf(v - s.m);
        }
    }
    MaxSum r = warp_merge(s);
    float inv = 1.0f / r.d;
    for (unsigned int j = lane; j < cols; j += 32) {
        yr[j] = expf(xr[j] - r.m) * inv;
    }
}
