/*+++
problem = "layernorm_rows"
dtype = "bf16"
rows = "67108864 / n"
# Rows up to 64 x 1024 = 65536 bf16 values fit in one block's registers.
sizes = ["2^10", "2^14"]
# One row per block; a warp for every 2048 columns, so each thread holds 64
# bf16 values (8 loads of 16 bytes), still packed two to a register.
[[launch]]
kernel = "layernorm_bf16"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 2048))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cached_block for bfloat16 x, weight, bias and y, with float32
// arithmetic. The pinned NVRTC has no <cuda_bf16.h>, so a bf16 is handled
// as its 16 raw bits: the top half of a float32, converted back with the
// hardware's round-to-nearest-even.

#define LOADS_PER_THREAD 8                    // 16-byte loads per thread
#define PER_THREAD (8 * LOADS_PER_THREAD)     // bf16 values held per thread

#include "bf16.cuh"
#include "rows_layernorm.cuh"

extern "C" __global__ void __launch_bounds__(1024) layernorm_bf16(
    const bf16* __restrict__ x, const bf16* __restrict__ weight, const bf16* __restrict__ bias,
    bf16* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
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
            uint4 t = i < cols / 8 ? x8[i] : make_uint4(0, 0, 0, 0);
            pairs[4 * k] = t.x;
            pairs[4 * k + 1] = t.y;
            pairs[4 * k + 2] = t.z;
            pairs[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; k += 2) {
            unsigned int j0 = threadIdx.x + k * blockDim.x, j1 = j0 + blockDim.x;
            unsigned int lo = j0 < cols ? xr[j0] : 0u;
            unsigned int hi = j1 < cols ? xr[j1] : 0u;
            pairs[k / 2] = lo | (hi << 16);
        }
    }

    // Exact two-pass moments of the thread's values (padding reads as 0
    // and is left out of the count), then one Chan merge over the block.
    float n = 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        n += in_row(k, vec, cols) ? 1.0f : 0.0f;
        sum += value(pairs, k);
    }
    float local_mean = n > 0.0f ? sum / n : 0.0f;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        float dev = in_row(k, vec, cols) ? value(pairs, k) - local_mean : 0.0f;
        m2 += dev * dev;
    }
    Moments row = block_merge({n, local_mean, m2});

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = row.mean;
    float rstd = rsqrtf(row.m2 / cols + eps);
    if (vec) {
        const uint4* w8 = reinterpret_cast<const uint4*>(weight);
        const uint4* b8 = reinterpret_cast<const uint4*>(bias);
        uint4* y8 = reinterpret_cast<uint4*>(yr);
#pragma unroll
        for (int k = 0; k < LOADS_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < cols / 8) {
                uint4 w4 = w8[i], b4 = b8[i];
                unsigned int w[4] = {w4.x, w4.y, w4.z, w4.w};
                unsigned int b[4] = {b4.x, b4.y, b4.z, b4.w};
                unsigned int out[4];
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    unsigned int p = pairs[4 * k + c];
                    out[c] = pack_bf16x2(
                        fmaf((low_half(p) - mean) * rstd, low_half(w[c]), low_half(b[c])),
                        fmaf((high_half(p) - mean) * rstd, high_half(w[c]), high_half(b[c])));
                }
                y8[i] = make_uint4(out[0], out[1], out[2], out[3]);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < cols) {
                yr[j] = to_bf16(fmaf((value(pairs, k) - mean) * rstd, from_bf16(weight[j]),
                                     from_bf16(bias[j])));
            }
        }
    }
}
