// The layer norm of "Reductions in disguise" that keeps its row in
// registers and takes the moments as two plain block sums: the body of
// layernorm_cached_sums.cu, and of layernorm_evict_first.cu, which loads x
// with other cache hints. `load_x` loads one float4 of x.
#pragma once

#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread
#define WB_AHEAD 2                         // weight/bias float4 pairs in flight
#define WB_EARLY 1                         // of them, issued before the reductions

__device__ float warp_sum(float s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, offset);
    }
    return s;
}

// The block's sum, returned to every thread; warp_sums is this call's own
// shared array, so two calls need no barrier between them. A block of one
// warp (uniform: blockDim is the same in every thread) skips shared memory.
__device__ float block_sum(float s, float* warp_sums) {
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_sum(s);
    if (blockDim.x == 32) {
        return s;  // one warp: its sum is the block's, in every lane
    }
    if (lane == 0) {
        warp_sums[warp] = s;
    }
    __syncthreads();
    s = 0.0f;
    if (lane < blockDim.x / 32) {
        s = warp_sums[lane];
    }
    return warp_sum(s);
}

// Whether this thread's k-th register holds a column of the row. Register k
// holds column 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4 with float4
// loads, threadIdx.x + k * blockDim.x without, so either way a warp's loads
// are contiguous.
__device__ bool in_row(int k, bool vec, unsigned int cols) {
    return vec ? threadIdx.x + (k / 4) * blockDim.x < cols / 4 : threadIdx.x + k * blockDim.x < cols;
}

template <typename LoadX>
__device__ __forceinline__ void layernorm_sums_row(const float* __restrict__ x, const float* __restrict__ weight,
                                                   const float* __restrict__ bias, float* __restrict__ y, float eps,
                                                   unsigned int cols, LoadX load_x) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4.
    bool vec = cols % 4 == 0;

    // All loads are issued before any is used. Columns past the row's end
    // read as 0, so they add nothing to the sum.
    float v[PER_THREAD];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < cols / 4 ? load_x(&x4[i]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < cols ? xr[j] : 0.0f;
        }
    }

    // ANCHOR: sums
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        sum += v[k];
    }
    // The first WB_EARLY weight and bias pairs, requested before the
    // reductions, whose latency then covers theirs. On the vector path
    // cols >= 4, so float4 0 exists.
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    float4 wq[WB_AHEAD], bq[WB_AHEAD];
    if (vec) {
#pragma unroll
        for (int d = 0; d < WB_EARLY; ++d) {
            unsigned int i = threadIdx.x + d * blockDim.x;
            unsigned int c = i < cols / 4 ? i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }
    __shared__ float sums[32];
    __shared__ float squares[32];
    float mean = block_sum(sum, sums) / cols;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        float dev = in_row(k, vec, cols) ? v[k] - mean : 0.0f;
        m2 += dev * dev;
    }
    m2 = block_sum(m2, squares);
    // ANCHOR_END: sums
    // The rest of the first WB_AHEAD pairs, now that the reductions'
    // registers are free.
    if (vec) {
#pragma unroll
        for (int d = WB_EARLY; d < WB_AHEAD; ++d) {
            unsigned int i = threadIdx.x + d * blockDim.x;
            unsigned int c = i < cols / 4 ? i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float rstd = rsqrtf(m2 / cols + eps);
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 w = wq[k % WB_AHEAD], b = bq[k % WB_AHEAD];
            if (k + WB_AHEAD < VEC_PER_THREAD) {
                unsigned int ahead = threadIdx.x + (k + WB_AHEAD) * blockDim.x;
                unsigned int c = ahead < cols / 4 ? ahead : 0;
                wq[k % WB_AHEAD] = w4[c];
                bq[k % WB_AHEAD] = b4[c];
            }
            if (i < cols / 4) {
                y4[i] = make_float4(fmaf((v[4 * k] - mean) * rstd, w.x, b.x),
                                    fmaf((v[4 * k + 1] - mean) * rstd, w.y, b.y),
                                    fmaf((v[4 * k + 2] - mean) * rstd, w.z, b.z),
                                    fmaf((v[4 * k + 3] - mean) * rstd, w.w, b.w));
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < cols) {
                yr[j] = fmaf((v[k] - mean) * rstd, weight[j], bias[j]);
            }
        }
    }
}
