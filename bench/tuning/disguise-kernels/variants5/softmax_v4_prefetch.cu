/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
# softmax_cached_block made persistent, as layernorm_v4_prefetch (variants4,
# variant E) makes layer norm: for 2^10 and 2^12. Rows up to 32 x 1024 =
# 32768 floats fit.
sizes = ["2^10", "2^12"]
# As many blocks as fit at once (1024 / block of them per SM, at most 32),
# each taking every gridDim-th row; a warp for every 1024 columns, 32
# floats a thread in registers and 128 bytes of shared memory a thread for
# the next row.
[[launch]]
kernel = "softmax_v4_prefetch"
grid = "min(rows, sms * min(32, 1024 / min(1024, 32 * ceil_div(cols, 1024))))"
block = "min(1024, 32 * ceil_div(cols, 1024))"
shared = "128 * block0"
args = ["x", "y", "rows", "cols"]
+++*/

// softmax_cached_block with one change: each block stays resident and
// copies its next row into shared memory (cp.async) while it reduces,
// rescales and stores the current one from registers, so a row is in
// flight for every block slot nearly all the time, as in a copy kernel.
// The block's (max, sum) merge alternates between two sets of shared slots
// by row parity: one barrier per row then suffices, because a warp can
// write row r + 2's slots only after the barrier of row r + 1, which every
// warp reaches after reading row r's. A block of one warp (2^10) merges by
// shuffles alone. Rows whose length is not a multiple of 4 (edge shapes
// only) read x straight from global memory, with no prefetch.

#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

// ---- inlined from kernels/disguise/rows_softmax.cuh (a probe outside kernels/ cannot include it) ----
// The online-softmax partial shared by the softmax kernels of "Reductions
// in disguise": a row's (max, sum of exponentials) so far, how two
// partials combine, and the combine over a warp and over a block; and the
// plain block sum of the kernels that take the max and the sum apart.

// -FLT_MAX rather than -infinity: an empty partial then rescales by
// exp(-FLT_MAX - m) = 0 instead of exp(-inf + inf) = NaN.
#define LOWEST (-3.402823466e38f)
// -infinity, which registers past the end of a row (or of a block's slice)
// hold: its exp is exactly 0, so the passes over them need no bounds checks.
#define PAD __int_as_float(0xff800000u)

// ANCHOR: merge
// A partial softmax denominator: d = sum of exp(x - m) over the elements
// seen so far, m their max.
struct MaxSum {
    float m;
    float d;
};

// Two partials combine by rescaling each sum to the larger max.
__device__ MaxSum merge(MaxSum a, MaxSum b) {
    float m = fmaxf(a.m, b.m);
    return {m, a.d * expf(a.m - m) + b.d * expf(b.m - m)};
}

// Four new elements at a time: one rescale of the old sum per float4,
// rather than one per element.
__device__ MaxSum add4(MaxSum s, float4 v) {
    float m = fmaxf(fmaxf(s.m, fmaxf(v.x, v.y)), fmaxf(v.z, v.w));
    float d = s.d * expf(s.m - m);
    d += (expf(v.x - m) + expf(v.y - m)) + (expf(v.z - m) + expf(v.w - m));
    return {m, d};
}
// ANCHOR_END: merge

// The (max, sum) of the warp's 32 partials, in every lane.
__device__ MaxSum warp_merge(MaxSum s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        MaxSum other = {__shfl_xor_sync(0xffffffffu, s.m, offset),
                        __shfl_xor_sync(0xffffffffu, s.d, offset)};
        s = merge(s, other);
    }
    return s;
}

// The block's (max, sum), returned to every thread. Call once per block.
__device__ MaxSum block_merge(MaxSum s) {
    __shared__ float warp_m[32];
    __shared__ float warp_d[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_merge(s);
    if (lane == 0) {
        warp_m[warp] = s.m;
        warp_d[warp] = s.d;
    }
    __syncthreads();
    s = {LOWEST, 0.0f};
    if (lane < blockDim.x / 32) {
        s = {warp_m[lane], warp_d[lane]};
    }
    return warp_merge(s);
}

// The sum of v over the block, returned to every thread. blockDim.x must be
// a multiple of 32; every thread must call it, and only once per block (its
// shared slots are not fenced for reuse).
__device__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    // Every warp folds the per-warp sums itself, so no second barrier is
    // needed to hand the total back.
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
}
// ---- end of kernels/disguise/rows_softmax.cuh ----
// ---- inlined from kernels/disguise/copy_async.cuh (a probe outside kernels/ cannot include it) ----
// The asynchronous copy of the split cluster kernels of "Reductions in
// disguise", which keep half of each thread's values in shared memory.

// Copies 16 bytes from global to shared memory without passing through
// registers; with `bytes` 0 it writes zeros instead of reading.
__device__ void copy16_async(void* smem, const void* gmem, unsigned int bytes) {
    unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
// ---- end of kernels/disguise/copy_async.cuh ----

__device__ MaxSum block_merge_parity(MaxSum s, float (*wm)[32], float (*wd)[32], unsigned int parity) {
    s = warp_merge(s);
    if (blockDim.x == 32) {
        return s;
    }
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    if (lane == 0) {
        wm[parity][warp] = s.m;
        wd[parity][warp] = s.d;
    }
    __syncthreads();
    s = {LOWEST, 0.0f};
    if (lane < blockDim.x / 32) {
        s = {wm[parity][lane], wd[parity][lane]};
    }
    return warp_merge(s);
}

// Starts the copy of row `row` into this thread's slots: slot k is
// stash[k * nt + t], column 4 * (t + k * nt), as the registers; past the
// row's end it writes zeros (masked back to PAD when read).
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

extern "C" __global__ void __launch_bounds__(1024) softmax_v4_prefetch(const float* __restrict__ x,
                                                                       float* __restrict__ y,
                                                                       unsigned int rows,
                                                                       unsigned int cols) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    bool vec = cols % 4 == 0;
    extern __shared__ float4 stash[];
    __shared__ float wm[2][32];
    __shared__ float wd[2][32];
    if (vec && blockIdx.x < rows) {
        prefetch_row(stash, x, blockIdx.x, cols, threadIdx.x, blockDim.x);
    }
    unsigned int parity = 0;
    for (unsigned int row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1u) {
        // Opaque to the compiler per row, so that it does not hoist every
        // derived address out of the loop and spill them.
        unsigned int t = threadIdx.x, nt = blockDim.x;
        asm volatile("" : "+r"(t), "+r"(nt));
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;

        float v[PER_THREAD];
        if (vec) {
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#pragma unroll
            for (int k = 0; k < VEC_PER_THREAD; ++k) {
                bool in = t + k * nt < cols / 4;
                float4 q = stash[k * nt + t];
                v[4 * k] = in ? q.x : PAD;
                v[4 * k + 1] = in ? q.y : PAD;
                v[4 * k + 2] = in ? q.z : PAD;
                v[4 * k + 3] = in ? q.w : PAD;
            }
            // Every slot is read (in this thread's order), so the next
            // row's copy may refill them under this row's work.
            unsigned int next = row + gridDim.x;
            if (next < rows) {
                prefetch_row(stash, x, next, cols, t, nt);
            }
        } else {
#pragma unroll
            for (int k = 0; k < PER_THREAD; ++k) {
                unsigned int j = t + k * nt;
                v[k] = j < cols ? xr[j] : PAD;
            }
        }

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
        MaxSum total = block_merge_parity({m, d}, wm, wd, parity);
        float scale = expf(m - total.m) / total.d;
        if (vec) {
            float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
            for (int k = 0; k < VEC_PER_THREAD; ++k) {
                unsigned int i = t + k * nt;
                if (i < cols / 4) {
                    y4[i] = make_float4(v[4 * k] * scale, v[4 * k + 1] * scale, v[4 * k + 2] * scale,
                                        v[4 * k + 3] * scale);
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < PER_THREAD; ++k) {
                unsigned int j = t + k * nt;
                if (j < cols) {
                    yr[j] = v[k] * scale;
                }
            }
        }
    }
}
