/*+++
problem = "softmax_rows"
dtype = "bf16"
rows = "67108864 / n"
# Rows up to 64 x 1024 = 65536 bf16 values fit in one block's registers.
sizes = ["2^10", "2^14"]
# One row per block; a warp for every 2048 columns, so each thread holds 64
# bf16 values (8 loads of 16 bytes), still packed two to a register.
[[launch]]
kernel = "softmax_bf16"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 2048))"
args = ["x", "y", "rows", "cols"]
+++*/

// softmax_cached_block for bfloat16 rows: the row is read once and kept
// packed in registers; arithmetic is float32. The pinned NVRTC has no
// <cuda_bf16.h>, so a bf16 is handled as its 16 raw bits: the top half of a
// float32, converted back with the hardware's round-to-nearest-even.

#define LOADS_PER_THREAD 8                    // 16-byte loads per thread
#define PER_THREAD (8 * LOADS_PER_THREAD)     // bf16 values held per thread

#define LOG2E 1.44269504f
// Two bf16 -infinities: padding past the row's end. exp of -infinity is
// exactly 0, so the passes need no bounds checks.
#define PAD_PAIR 0xff80ff80u
#define PAD_ONE 0xff80u

#include "bf16.cuh"
#include "rows_softmax.cuh"

extern "C" __global__ void __launch_bounds__(1024) softmax_bf16(const bf16* __restrict__ x,
                                                                bf16* __restrict__ y,
                                                                unsigned int rows,
                                                                unsigned int cols) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    const bf16* xr = x + (size_t)blockIdx.x * cols;
    bf16* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 8.
    bool vec = cols % 8 == 0;

    unsigned int pairs[PER_THREAD / 2];
    if (vec) {
        const uint4* x8 = reinterpret_cast<const uint4*>(xr);
#pragma unroll
        for (int k = 0; k < LOADS_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            uint4 t = i < cols / 8 ? x8[i] : make_uint4(PAD_PAIR, PAD_PAIR, PAD_PAIR, PAD_PAIR);
            pairs[4 * k] = t.x;
            pairs[4 * k + 1] = t.y;
            pairs[4 * k + 2] = t.z;
            pairs[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; k += 2) {
            unsigned int j0 = threadIdx.x + k * blockDim.x, j1 = j0 + blockDim.x;
            unsigned int lo = j0 < cols ? xr[j0] : PAD_ONE;
            unsigned int hi = j1 < cols ? xr[j1] : PAD_ONE;
            pairs[k / 2] = lo | (hi << 16);
        }
    }

    float m = LOWEST;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        m = fmaxf(m, value(pairs, k));
    }
    // exp(x - m) = 2^(x * log2(e) - m * log2(e)): one fused multiply-add and
    // one exp2f. Its error, a few parts in 10^7 for |x - m| < 16, is far
    // inside bf16's own rounding of 2^-9. The exponentials are not kept (64
    // floats per thread would not fit), so the write pass computes them again.
    // A thread with only padding keeps m = LOWEST, whose product with
    // log2(e) would overflow to -infinity and turn its terms into NaN.
    float d = 0.0f;
    float shift = m == LOWEST ? 0.0f : m * LOG2E;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        d += exp2f(fmaf(value(pairs, k), LOG2E, -shift));
    }
    MaxSum row = block_merge({m, d});
    float scale = 1.0f / row.d;
    shift = row.m * LOG2E;

    if (vec) {
        // ANCHOR: pack
        uint4* y8 = reinterpret_cast<uint4*>(yr);
#pragma unroll
        for (int k = 0; k < LOADS_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < cols / 8) {
                unsigned int out[4];
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    unsigned int p = pairs[4 * k + c];
                    out[c] = pack_bf16x2(exp2f(fmaf(low_half(p), LOG2E, -shift)) * scale,
                                         exp2f(fmaf(high_half(p), LOG2E, -shift)) * scale);
                }
                y8[i] = make_uint4(out[0], out[1], out[2], out[3]);
            }
        }
        // ANCHOR_END: pack
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < cols) {
                yr[j] = to_bf16(exp2f(fmaf(value(pairs, k), LOG2E, -shift)) * scale);
            }
        }
    }
}
