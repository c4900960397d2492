/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Variant (d2) of layernorm_cluster_split, for the longest rows, 2^16 and
# 2^18 floats. Rows up to 8 x 64 x 512 = 262144 floats fit.
sizes = ["2^16", "2^18"]
# A cluster of 8 blocks per row; each block keeps an eighth of the row,
# half in registers and half in shared memory (64 floats a thread, 128
# bytes of shared memory a thread), so two blocks fit on an SM.
[[launch]]
kernel = "layernorm_cluster_split_wbpipe4"
grid = "8 * rows"
block = "min(512, 32 * ceil_div(cols, 16384))"
shared = "128 * block0"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// VARIANT (d2) of layernorm_cluster_split: layernorm_cluster_split_wbpipe
// with a deeper pipeline, one change against it. There each weight and
// bias pair is requested two stores ahead of its use, as the 64 registers
// allow while the register half of x is live. Once the stores reach the
// shared-memory half those 32 registers are free, so here the pairs of the
// second half are requested four stores ahead (the pair of store 8 at
// store 4, and so on); the first half stays two ahead. Does the depth of
// the pipeline still matter at two?
//
// (d), as in layernorm_cluster_split_wbpipe: in the base each of a
// thread's 16 float4 of y waits for its own weight and bias load, issued
// inside a bounds-checked branch right before the store; at 2^16 and 2^18
// the 256 KiB of weight and bias a block reads come from L2, so a block
// pays sixteen L2 latencies one after the other once its row's moments are
// known. The loads are unconditional (a column past the slice reads float4
// 0 of the weight and is never stored), the first pair is issued before the
// cluster barrier, whose wait then covers its latency, the second once the
// row's moments are merged.
//
// layernorm_cluster_regs holds its slice in registers, 32 floats a thread
// at 1024 threads a block: at 2^18 floats a row that is one block per SM,
// so an SM waits through each block's loads, then its arithmetic, then its
// stores. Here each thread holds 64 floats, half in registers and half in
// shared memory, filled by asynchronous copies (cp.async) that need no
// registers on the way; at 512 threads two blocks share an SM and one's
// loads overlap the other's stores. x is still read once.

#define CLUSTER 8                          // blocks per row; the 8 in the grid
#define VEC_IN_REGS 8                      // float4 held in registers per thread
#define VEC_IN_SMEM 8                      // float4 held in shared memory per thread
#define PER_THREAD (4 * (VEC_IN_REGS + VEC_IN_SMEM))
#define CHUNKS (VEC_IN_REGS + VEC_IN_SMEM)  // float4 of y per thread

// How many stores ahead of its use the weight and bias of store c are
// requested: two while x's register half is live, four after.
__device__ constexpr int wb_ahead(int c) { return c < VEC_IN_REGS ? 2 : 4; }

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

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(512, 2)
    layernorm_cluster_split_wbpipe4(const float* __restrict__ x, const float* __restrict__ weight,
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
    // The pair of store 0, requested before the cluster barrier. On the
    // vector path cols >= 4 and begin is a multiple of 4, so float4
    // begin / 4 + i of the weight exists while i < len / 4, and float4 0
    // stands in past the slice. wq[c] and bq[c] are indexed by constants
    // only, so they live in registers, and only while requested.
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    unsigned int first4 = begin / 4;
    float4 wq[CHUNKS], bq[CHUNKS];
    auto request = [&](int c) {
        unsigned int i = threadIdx.x + c * blockDim.x;
        unsigned int at = i < len / 4 ? first4 + i : 0;
        wq[c] = w4[at];
        bq[c] = b4[at];
    };
    if (vec) {
        request(0);
    }
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
    // The pair of store 1, now that the merge's registers are free.
    if (vec) {
        request(1);
    }

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = total.mean;
    float rstd = rsqrtf(total.m2 / cols + eps);
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            // Request every pair due at this store (known at compile time).
#pragma unroll
            for (int c = 2; c < CHUNKS; ++c) {
                if (c - wb_ahead(c) == k) {
                    request(c);
                }
            }
            float4 w = wq[k], b = bq[k];
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
    __cluster_barrier_wait();
}
