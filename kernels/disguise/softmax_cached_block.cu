/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows of 2^10 to 2^14 floats, which fit one block. Rows up to
# 32 x 1024 = 32768 floats fit; longer rows need softmax_cluster.
sizes = ["2^10", "2^12", "2^14"]
# One row per block; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers.
[[launch]]
kernel = "softmax_cached_block"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "y", "rows", "cols"]
+++*/

// The row is read from DRAM once, into registers, and written once: the
// same traffic as a copy. Each thread also subtracts its own max, so every
// element costs one exp and the block needs a single reduction.

#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

#include "rows_softmax.cuh"

extern "C" __global__ void __launch_bounds__(1024) softmax_cached_block(const float* __restrict__ x,
                                                                        float* __restrict__ y,
                                                                        unsigned int rows,
                                                                        unsigned int cols) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4.
    bool vec = cols % 4 == 0;

    // ANCHOR: load
    // All loads are issued before any is used: up to 128 bytes in flight per
    // thread.
    // Register k holds column 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4
    // with float4 loads, threadIdx.x + k * blockDim.x without: either way a
    // warp's loads are contiguous.
    float v[PER_THREAD];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < cols / 4 ? x4[i] : make_float4(PAD, PAD, PAD, PAD);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < cols ? xr[j] : PAD;
        }
    }
    // ANCHOR_END: load

    // ANCHOR: local
    // The thread's own max, then its exponentials, kept in place of x.
    float m = LOWEST;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        m = fmaxf(m, v[k]);
    }
    float d = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        v[k] = expf(v[k] - m);
        d += v[k];
    }
    // ANCHOR_END: local

    // ANCHOR: finish
    // One reduction gives the row's max M and sum D. Since
    // exp(x - M) = exp(x - m) * exp(m - M), each thread rescales its
    // exponentials by one factor.
    MaxSum row = block_merge({m, d});
    float scale = expf(m - row.m) / row.d;
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < cols / 4) {
                y4[i] = make_float4(v[4 * k] * scale, v[4 * k + 1] * scale,
                                    v[4 * k + 2] * scale, v[4 * k + 3] * scale);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < cols) {
                yr[j] = v[k] * scale;
            }
        }
    }
    // ANCHOR_END: finish
}
