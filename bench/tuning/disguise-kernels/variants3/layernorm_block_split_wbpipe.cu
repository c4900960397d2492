/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Variants (f) + (a) of layernorm_cached_block, for rows of 2^12 and 2^14
# floats.
# Rows up to 64 x 512 = 32768 floats fit.
sizes = ["2^12", "2^14"]
# One row per block; a warp for every 2048 columns, each thread keeping 64
# floats, half in registers and half in shared memory (128 bytes of shared
# memory a thread).
[[launch]]
kernel = "layernorm_block_split_wbpipe"
grid = "rows"
block = "min(512, 32 * ceil_div(cols, 2048))"
shared = "128 * block0"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// VARIANTS (f) + (a) of layernorm_cached_block: layernorm_block_split with
// the weight and bias loads of layernorm_cached_wb_early and
// layernorm_cluster_split_wbpipe, one change against layernorm_block_split.
// Its store loop waits for sixteen weight and bias loads one after the
// other; here they are unconditional (a column past the row reads float4 0
// and is never stored), the first pair is requested before the block
// reduction, the second after it, and each later pair WB_AHEAD stores ahead
// of its use.
//
// (f), as in layernorm_block_split: where a thread keeps its values.
// layernorm_cached_block holds 32 floats a thread in registers, 64
// registers a thread, which at 2^12 allows 8 blocks of 4 warps on an SM
// (16 KiB of x each, 128 KiB in flight at most) and at 2^14 2 blocks of 16
// warps; every block waits at its barrier for the slowest of its warps.
// Here each thread holds 64 floats, half in registers and half in shared
// memory filled by cp.async (the storage of layernorm_cluster_split, without
// the cluster): half the threads per row, so at 2^12 16 blocks of 2 warps
// share an SM (256 KiB of x in flight) and at 2^14 4 blocks of 8 warps.

#define VEC_IN_REGS 8                      // float4 held in registers per thread
#define VEC_IN_SMEM 8                      // float4 held in shared memory per thread
#define PER_THREAD (4 * (VEC_IN_REGS + VEC_IN_SMEM))
#define WB_AHEAD 2                         // weight/bias float4 pairs in flight
#define WB_EARLY 1                         // of them, issued before the reduction

// n elements, their mean, and m2 = sum of (x - mean)^2.
struct Moments {
    float n;
    float mean;
    float m2;
};

// Chan et al.: two partials into one.
__device__ Moments merge(Moments a, Moments b) {
    float n = a.n + b.n;
    if (n == 0.0f) {
        return a;
    }
    float delta = b.mean - a.mean;
    float fb = b.n / n;
    return {n, a.mean + delta * fb, a.m2 + b.m2 + delta * delta * a.n * fb};
}

__device__ Moments warp_merge(Moments s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        Moments other = {__shfl_xor_sync(0xffffffffu, s.n, offset),
                         __shfl_xor_sync(0xffffffffu, s.mean, offset),
                         __shfl_xor_sync(0xffffffffu, s.m2, offset)};
        s = merge(s, other);
    }
    return s;
}

// The block's moments, returned to every thread. Call once per block.
__device__ Moments block_merge(Moments s) {
    __shared__ Moments warp_moments[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_merge(s);
    if (lane == 0) {
        warp_moments[warp] = s;
    }
    __syncthreads();
    s = {0.0f, 0.0f, 0.0f};
    if (lane < blockDim.x / 32) {
        s = warp_moments[lane];
    }
    return warp_merge(s);
}

// Copies 16 bytes from global to shared memory without passing through
// registers; with `bytes` 0 it writes zeros instead of reading.
__device__ void copy16_async(void* smem, const void* gmem, unsigned int bytes) {
    unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}

extern "C" __global__ void __launch_bounds__(512, 2)
    layernorm_block_split_wbpipe(const float* __restrict__ x, const float* __restrict__ weight,
                                 const float* __restrict__ bias, float* __restrict__ y, float eps,
                                 unsigned int rows, unsigned int cols) {
    // Slot k of this thread is stash[k * blockDim.x + threadIdx.x]: a
    // thread only ever touches its own slots, so no barrier guards them.
    extern __shared__ float4 stash[];

    size_t row = blockIdx.x;
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    unsigned int len = cols;
    const float* xs = x + row * cols;
    float* ys = y + row * cols;
    const float* ws = weight;
    const float* bs = bias;
    bool vec = cols % 4 == 0;
    float* stash_f = reinterpret_cast<float*>(stash);

    // Element e of the thread (0 <= e < PER_THREAD) is, with float4 loads,
    // float 4 * (threadIdx.x + (e / 4) * blockDim.x) + e % 4 of the row,
    // and without, float threadIdx.x + e * blockDim.x. The first 4 *
    // VEC_IN_REGS live in v[], the rest in the stash. Past the row's end
    // they are 0 and left out of the counts.
    float v[4 * VEC_IN_REGS];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xs);
#pragma unroll
        for (int k = 0; k < VEC_IN_SMEM; ++k) {
            unsigned int i = threadIdx.x + (VEC_IN_REGS + k) * blockDim.x;
            bool in = i < len / 4;
            copy16_async(&stash[k * blockDim.x + threadIdx.x], in ? &x4[i] : x4, in ? 16 : 0);
        }
        asm volatile("cp.async.commit_group;\n" ::);
#pragma unroll
        for (int k = 0; k < VEC_IN_REGS; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < len / 4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
        asm volatile("cp.async.wait_all;\n" ::);
    } else {
#pragma unroll
        for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < len ? xs[j] : 0.0f;
        }
        for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
            unsigned int j = threadIdx.x + (4 * VEC_IN_REGS + k) * blockDim.x;
            stash_f[k * blockDim.x + threadIdx.x] = j < len ? xs[j] : 0.0f;
        }
    }
    // The stashed float k of this thread (k < 4 * VEC_IN_SMEM), in the
    // element order above.
    auto stashed = [&](int k) {
        return vec ? reinterpret_cast<const float*>(&stash[(k / 4) * blockDim.x + threadIdx.x])[k % 4]
                   : stash_f[k * blockDim.x + threadIdx.x];
    };
    // Whether element e of the thread lies in the row.
    auto in_row = [&](int e) {
        return vec ? threadIdx.x + (e / 4) * blockDim.x < len / 4 : threadIdx.x + e * blockDim.x < len;
    };

    // Exact two-pass moments of the thread's values, merged over the block.
    float n = 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
        n += in_row(k) ? 1.0f : 0.0f;
        sum += v[k];
    }
#pragma unroll 4
    for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
        n += in_row(4 * VEC_IN_REGS + k) ? 1.0f : 0.0f;
        sum += stashed(k);
    }
    float local_mean = n > 0.0f ? sum / n : 0.0f;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
        float dev = in_row(k) ? v[k] - local_mean : 0.0f;
        m2 += dev * dev;
    }
#pragma unroll 4
    for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
        float dev = in_row(4 * VEC_IN_REGS + k) ? stashed(k) - local_mean : 0.0f;
        m2 += dev * dev;
    }
    // The first WB_EARLY weight and bias pairs, requested before the
    // reduction. On the vector path cols >= 4, so float4 0 exists.
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    float4 wq[WB_AHEAD], bq[WB_AHEAD];
    if (vec) {
#pragma unroll
        for (int d = 0; d < WB_EARLY; ++d) {
            unsigned int i = threadIdx.x + d * blockDim.x;
            unsigned int c = i < len / 4 ? i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }
    Moments total = block_merge({n, local_mean, m2});
    // The rest of the first WB_AHEAD pairs, now that the merge's registers
    // are free.
    if (vec) {
#pragma unroll
        for (int d = WB_EARLY; d < WB_AHEAD; ++d) {
            unsigned int i = threadIdx.x + d * blockDim.x;
            unsigned int c = i < len / 4 ? i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = total.mean;
    float rstd = rsqrtf(total.m2 / cols + eps);
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
        for (int k = 0; k < VEC_IN_REGS + VEC_IN_SMEM; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 w = wq[k % WB_AHEAD], b = bq[k % WB_AHEAD];
            if (k + WB_AHEAD < VEC_IN_REGS + VEC_IN_SMEM) {
                unsigned int ahead = threadIdx.x + (k + WB_AHEAD) * blockDim.x;
                unsigned int c = ahead < len / 4 ? ahead : 0;
                wq[k % WB_AHEAD] = w4[c];
                bq[k % WB_AHEAD] = b4[c];
            }
            if (i < len / 4) {
                float4 t = k < VEC_IN_REGS
                               ? make_float4(v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3])
                               : stash[(k - VEC_IN_REGS) * blockDim.x + threadIdx.x];
                y4[i] = make_float4(fmaf((t.x - mean) * rstd, w.x, b.x),
                                    fmaf((t.y - mean) * rstd, w.y, b.y),
                                    fmaf((t.z - mean) * rstd, w.z, b.z),
                                    fmaf((t.w - mean) * rstd, w.w, b.w));
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < len) {
                float t = k < 4 * VEC_IN_REGS ? v[k] : stash_f[(k - 4 * VEC_IN_REGS) * blockDim.x + threadIdx.x];
                ys[j] = fmaf((t - mean) * rstd, ws[j], bs[j]);
            }
        }
    }
}
