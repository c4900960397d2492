/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Round-2 variant E (of variant B), for 2^10 and 2^12. Rows up to
# 32 x 1024 = 32768 floats fit.
sizes = ["2^10", "2^12"]
# Persistent blocks: as many as fit on the GPU at once (64 registers a
# thread: 1024 / block of them per SM, at most 32), each taking every
# gridDim-th row; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers, and 128 bytes of shared memory a thread
# for the next row.
[[launch]]
kernel = "layernorm_v4_prefetch"
grid = "min(rows, sms * min(32, 1024 / min(1024, 32 * ceil_div(cols, 1024))))"
block = "min(1024, 32 * ceil_div(cols, 1024))"
shared = "128 * block0"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// VARIANT E of layernorm_v4_warpsum (variant B), one change: each block
// stays resident and fetches its next row into shared memory (cp.async,
// no registers on the way) while it reduces, normalises and stores the
// current one from registers.
// In the base and variants A-D a block's loads are in flight only until
// its row arrives: through the block's reductions, weight/bias loads and
// stores nothing of it is in flight, and a new block starts only when one
// retires. Round 1 says that time counts: at 2^12 the same 8 rows per SM
// in flight lose 4 µs to a copy even without weight and bias
// (softmax_cached_block, 133.4 µs), and the layouts that put more rows in
// flight but more work per thread lost more (block_split, 150.6). Here
// each of the 8 (2^12) or 32 (2^10) blocks per SM has a row in flight all
// the time but for the few instructions between the wait and the next
// issue, as a copy kernel does; x travels L2 -> shared memory (cp.async.cg
// caches at L2 only, so weight and bias keep L1), then shared memory ->
// registers, each thread reading back only the 16-byte slots it filled
// (no barrier). Shared memory: 16 KiB a block at 2^12, 4 KiB at 2^10,
// 128 KiB an SM at both. The grid is the resident block count (1056 at
// 2^12, 4224 at 2^10 on 132 SMs), so the 15.5 rows per block slot of the
// base become 15 or 16 rows per block.
//
// Everything else is variant B: weight and bias loads early, two plain
// sums (the row's sum, then its squared deviations from the row's mean,
// which are small numbers: never E[x^2] - mean^2), shuffles only for a
// block of one warp. Rows whose length is not a multiple of 4 (edge shapes
// only) read x straight from global memory, as B, with no prefetch.

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

// Whether thread t's k-th register holds a column of the row (nt threads
// a block). Register k holds column 4 * (t + (k / 4) * nt) + k % 4 with
// float4 loads, t + k * nt without, so either way a warp's loads are
// contiguous.
__device__ bool in_row(int k, bool vec, unsigned int cols, unsigned int t, unsigned int nt) {
    return vec ? t + (k / 4) * nt < cols / 4 : t + k * nt < cols;
}

// Copies 16 bytes from global to shared memory without passing through
// registers; with bytes 0 it writes 16 zero bytes and reads nothing.
__device__ __forceinline__ void copy16_async(void* smem, const void* gmem, unsigned int bytes) {
    unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes) : "memory");
}

// Starts the copy of row `row` into this thread's slots of stash: slot k
// is stash[k * blockDim.x + threadIdx.x], column 4 * (threadIdx.x + k *
// blockDim.x), as the registers. Past the row's end it writes zeros.
__device__ __forceinline__ void prefetch_row(float4* stash, const float* __restrict__ x, size_t row,
                                             unsigned int cols, unsigned int t, unsigned int nt) {
    const float4* x4 = reinterpret_cast<const float4*>(x + row * cols);
#pragma unroll
    for (int k = 0; k < VEC_PER_THREAD; ++k) {
        unsigned int i = t + k * nt;
        bool in = i < cols / 4;
        copy16_async(&stash[k * nt + t], in ? x4 + i : x4, in ? 16u : 0u);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(1024) layernorm_v4_prefetch(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    // A row starts on a 16-byte boundary only when cols is a multiple of 4.
    bool vec = cols % 4 == 0;
    // The block's next row, VEC_PER_THREAD float4 a thread (128 * blockDim
    // bytes, the launch's dynamic shared memory).
    extern __shared__ float4 stash[];
    __shared__ float sums[32];
    __shared__ float squares[32];
    if (vec && blockIdx.x < rows) {
        prefetch_row(stash, x, blockIdx.x, cols, threadIdx.x, blockDim.x);
    }

    // Every thread of the block takes the same rows, so the barriers of
    // the block sums are reached by all.
    for (unsigned int row = blockIdx.x; row < rows; row += gridDim.x) {
        // The thread's index and the block's size, made opaque to the compiler
        // for this row: otherwise it hoists every address derived from them out
        // of the loop and keeps them all (64-bit each) through it, which spills.
        unsigned int t = threadIdx.x, nt = blockDim.x;
        asm volatile("" : "+r"(t), "+r"(nt));
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;

        // The row, from the slots this thread's copies filled (columns past
        // the row's end hold 0), or without float4 straight from global memory.
        float v[PER_THREAD];
        if (vec) {
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#pragma unroll
            for (int k = 0; k < VEC_PER_THREAD; ++k) {
                float4 q = stash[k * nt + t];
                v[4 * k] = q.x;
                v[4 * k + 1] = q.y;
                v[4 * k + 2] = q.z;
                v[4 * k + 3] = q.w;
            }
        } else {
#pragma unroll
            for (int k = 0; k < PER_THREAD; ++k) {
                unsigned int j = t + k * nt;
                v[k] = j < cols ? xr[j] : 0.0f;
            }
        }

        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            sum += v[k];
        }
        // The loads above have read every slot (they precede these copies in
        // the thread's order, which the compiler keeps), so the slots can be
        // refilled: the next row's copy runs under this row's reductions,
        // weight/bias loads and stores.
        unsigned int next = row + gridDim.x;
        if (vec && next < rows) {
            prefetch_row(stash, x, next, cols, t, nt);
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
                unsigned int i = t + d * nt;
                unsigned int c = i < cols / 4 ? i : 0;
                wq[d] = w4[c];
                bq[d] = b4[c];
            }
        }
        float mean = block_sum(sum, sums) / cols;
        float m2 = 0.0f;
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            float dev = in_row(k, vec, cols, t, nt) ? v[k] - mean : 0.0f;
            m2 += dev * dev;
        }
        m2 = block_sum(m2, squares);
        // The rest of the first WB_AHEAD pairs, now that the reductions'
        // registers are free.
        if (vec) {
#pragma unroll
            for (int d = WB_EARLY; d < WB_AHEAD; ++d) {
                unsigned int i = t + d * nt;
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
                unsigned int i = t + k * nt;
                float4 w = wq[k % WB_AHEAD], b = bq[k % WB_AHEAD];
                if (k + WB_AHEAD < VEC_PER_THREAD) {
                    unsigned int ahead = t + (k + WB_AHEAD) * nt;
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
                unsigned int j = t + k * nt;
                if (j < cols) {
                    yr[j] = fmaf((v[k] - mean) * rstd, weight[j], bias[j]);
                }
            }
        }
    }
}
