/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for the longest rows, 2^16 and 2^18 floats. Rows up to
# 8 x 64 x 512 = 262144 floats fit.
sizes = ["2^16", "2^18"]
# A cluster of 8 blocks per row; each block keeps an eighth of the row,
# half in registers and half in shared memory (64 floats a thread, 128
# bytes of shared memory a thread), so two blocks fit on an SM.
[[launch]]
kernel = "layernorm_c16_pipelined"
grid = "16 * rows"
block = "min(512, 32 * ceil_div(cols, 16384))"
shared = "64 * block0"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cluster_split with one change, in the stores: the weight and
// bias they need are requested ahead. In layernorm_cluster_split each of
// a thread's 16 float4 stores waits for its own weight and bias loads,
// issued right before it inside the bounds test; at these row lengths a
// block's 256 KiB of weight and bias come from L2, so the stores wait out
// one L2 round trip after another. Here the loads are unconditional (past
// the slice they read float4 0 and the store is skipped), the first pair
// goes out before the cluster barrier, the second once the row's moments
// are merged, and each later pair WB_AHEAD stores before its use. (Two
// pairs kept through the merge spill at the 64 registers the launch
// allows.)
//
// layernorm_cluster_regs holds its slice in registers, 32 floats a thread
// at 1024 threads a block: at 2^18 floats a row that is one block per SM,
// so an SM waits through each block's loads, then its arithmetic, then its
// stores. Here each thread holds 64 floats, half in registers and half in
// shared memory, filled by asynchronous copies (cp.async) that need no
// registers on the way; at 512 threads two blocks share an SM and one's
// loads overlap the other's stores. x is still read once.

#define CLUSTER 16                          // blocks per row; the 16 in the grid (non-portable size)
#define VEC_IN_REGS 4                      // float4 held in registers per thread
#define VEC_IN_SMEM 4                      // float4 held in shared memory per thread
#define PER_THREAD (4 * (VEC_IN_REGS + VEC_IN_SMEM))
#define WB_AHEAD 2                         // weight/bias float4 pairs in flight
#define WB_EARLY 1                         // of them, issued before the reduction

// ---- inlined from kernels/disguise/rows_layernorm.cuh (a probe outside kernels/ cannot include it) ----
// The moments shared by the layer-norm kernels of "Reductions in disguise":
// a row's count, mean and sum of squared deviations so far, Welford's update
// by one element, Chan's merge of two partials, and the merge over a warp
// and over a block.

// ANCHOR: moments
// n elements, their mean, and m2 = sum of (x - mean)^2. n is a float: it
// is exact up to 2^24 and saves conversions in the merge.
struct Moments {
    float n;
    float mean;
    float m2;
};

// Welford: one element into a running partial.
__device__ Moments add(Moments s, float v) {
    s.n += 1.0f;
    float delta = v - s.mean;
    s.mean += delta / s.n;
    s.m2 += delta * (v - s.mean);
    return s;
}

// Chan et al.: two partials into one. Only the difference of the means is
// squared, never a raw x.
__device__ Moments merge(Moments a, Moments b) {
    float n = a.n + b.n;
    if (n == 0.0f) {
        return a;
    }
    float delta = b.mean - a.mean;
    float fb = b.n / n;
    return {n, a.mean + delta * fb, a.m2 + b.m2 + delta * delta * a.n * fb};
}
// ANCHOR_END: moments

// The moments of the warp's 32 partials, in every lane.
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
// ---- end of kernels/disguise/rows_layernorm.cuh ----
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

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(512, 2)
    layernorm_c16_pipelined(const float* __restrict__ x, const float* __restrict__ weight,
                                   const float* __restrict__ bias, float* __restrict__ y, float eps,
                                   unsigned int rows, unsigned int cols) {
    // This block's moments; the other blocks of the cluster read them.
    __shared__ Moments partial;
    // Slot k of this thread is stash[k * blockDim.x + threadIdx.x]: a
    // thread only ever touches its own slots, so no barrier guards them.
    extern __shared__ float4 stash[];

    unsigned int rank = __clusterRelativeBlockRank();
    size_t row = blockIdx.x / CLUSTER;
    unsigned int per_block = 4 * ((cols + 4 * CLUSTER - 1) / (4 * CLUSTER));
    if (per_block > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the slice
    }
    unsigned int begin = min(cols, rank * per_block);
    unsigned int len = min(cols - begin, per_block);
    const float* xs = x + row * cols + begin;
    float* ys = y + row * cols + begin;
    const float* ws = weight + begin;
    const float* bs = bias + begin;
    bool vec = cols % 4 == 0;
    float* stash_f = reinterpret_cast<float*>(stash);

    // Element e of the thread (0 <= e < PER_THREAD) is, with float4 loads,
    // float 4 * (threadIdx.x + (e / 4) * blockDim.x) + e % 4 of the slice,
    // and without, float threadIdx.x + e * blockDim.x. The first 4 *
    // VEC_IN_REGS live in v[], the rest in the stash. Past the slice's end
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
    // Whether element e of the thread lies in the slice.
    auto in_slice = [&](int e) {
        return vec ? threadIdx.x + (e / 4) * blockDim.x < len / 4 : threadIdx.x + e * blockDim.x < len;
    };

    // Exact two-pass moments of the thread's values, merged over the block.
    float n = 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
        n += in_slice(k) ? 1.0f : 0.0f;
        sum += v[k];
    }
#pragma unroll 4
    for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
        n += in_slice(4 * VEC_IN_REGS + k) ? 1.0f : 0.0f;
        sum += stashed(k);
    }
    float local_mean = n > 0.0f ? sum / n : 0.0f;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
        float dev = in_slice(k) ? v[k] - local_mean : 0.0f;
        m2 += dev * dev;
    }
#pragma unroll 4
    for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
        float dev = in_slice(4 * VEC_IN_REGS + k) ? stashed(k) - local_mean : 0.0f;
        m2 += dev * dev;
    }
    Moments block = block_merge({n, local_mean, m2});

    if (threadIdx.x == 0) {
        partial = block;
    }
    // ANCHOR: early
    // The first WB_EARLY weight and bias pairs of this thread, requested
    // before the cluster barrier. On the vector path cols >= 4 and begin is
    // a multiple of 4, so float4 begin / 4 + i of the weight exists while
    // i < len / 4, and float4 0 stands in past the slice.
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    unsigned int first4 = begin / 4;
    float4 wq[WB_AHEAD], bq[WB_AHEAD];
    if (vec) {
#pragma unroll
        for (int d = 0; d < WB_EARLY; ++d) {
            unsigned int i = threadIdx.x + d * blockDim.x;
            unsigned int c = i < len / 4 ? first4 + i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }
    // ANCHOR_END: early
    // Every block's moments are written (and every block has started)
    // before anyone reads another's shared memory.
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    unsigned int lane = threadIdx.x % 32;
    Moments other = {0.0f, 0.0f, 0.0f};
    if (lane < CLUSTER) {
        other = *static_cast<Moments*>(__cluster_map_shared_rank(&partial, lane));
    }
    Moments total = warp_merge(other);
    // Done reading remote memory; the wait at the end keeps this block's
    // shared memory alive until all blocks have read it.
    __cluster_barrier_arrive();
    // The rest of the first WB_AHEAD pairs, now that the merge's registers
    // are free.
    if (vec) {
#pragma unroll
        for (int d = WB_EARLY; d < WB_AHEAD; ++d) {
            unsigned int i = threadIdx.x + d * blockDim.x;
            unsigned int c = i < len / 4 ? first4 + i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = total.mean;
    float rstd = rsqrtf(total.m2 / cols + eps);
    if (vec) {
        // ANCHOR: stores
        float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
        for (int k = 0; k < VEC_IN_REGS + VEC_IN_SMEM; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 w = wq[k % WB_AHEAD], b = bq[k % WB_AHEAD];
            if (k + WB_AHEAD < VEC_IN_REGS + VEC_IN_SMEM) {
                unsigned int ahead = threadIdx.x + (k + WB_AHEAD) * blockDim.x;
                unsigned int c = ahead < len / 4 ? first4 + ahead : 0;
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
        // ANCHOR_END: stores
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
    __cluster_barrier_wait();
}
