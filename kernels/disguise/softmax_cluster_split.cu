/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for the longest rows, 2^16 and 2^18 floats. Rows up to
# 8 x 64 x 512 = 262144 floats fit.
sizes = ["2^16", "2^18"]
# A cluster of 8 blocks per row; each block keeps an eighth of the row,
# half in registers and half in shared memory (64 floats a thread, 128
# bytes of shared memory a thread), so two blocks fit on an SM.
[[launch]]
kernel = "softmax_cluster_split"
grid = "8 * rows"
block = "min(512, 32 * ceil_div(cols, 16384))"
shared = "128 * block0"
args = ["x", "y", "rows", "cols"]
+++*/

// softmax_cluster_regs with each thread holding 64 floats, half in
// registers and half in shared memory filled by asynchronous copies
// (cp.async), so that at 2^18 floats a row two blocks of 512 threads share
// an SM instead of one of 1024. x is still read once.

#define CLUSTER 8                          // blocks per row; the 8 in the grid
#define VEC_IN_REGS 8                      // float4 held in registers per thread
#define VEC_IN_SMEM 8                      // float4 held in shared memory per thread
#define PER_THREAD (4 * (VEC_IN_REGS + VEC_IN_SMEM))

#include "rows_softmax.cuh"
#include "copy_async.cuh"

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(512, 2)
    softmax_cluster_split(const float* __restrict__ x, float* __restrict__ y, unsigned int rows,
                          unsigned int cols) {
    // This block's (max, sum); the other blocks of the cluster read it.
    __shared__ MaxSum partial;
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
    bool vec = cols % 4 == 0;
    float* stash_f = reinterpret_cast<float*>(stash);

    // Element e of the thread is, with float4 loads, float 4 * (threadIdx.x
    // + (e / 4) * blockDim.x) + e % 4 of the slice, and without, float
    // threadIdx.x + e * blockDim.x. The first 4 * VEC_IN_REGS live in v[],
    // the rest in the stash. Past the slice's end they hold -infinity,
    // whose exp is exactly 0. (cp.async fills what it skips with zeros, so
    // the stash's padding is written over below.)
    // ANCHOR: split
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
            float4 t = i < len / 4 ? x4[i] : make_float4(PAD, PAD, PAD, PAD);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
        asm volatile("cp.async.wait_all;\n" ::);
    // ANCHOR_END: split
#pragma unroll
        for (int k = 0; k < VEC_IN_SMEM; ++k) {
            if (threadIdx.x + (VEC_IN_REGS + k) * blockDim.x >= len / 4) {
                stash[k * blockDim.x + threadIdx.x] = make_float4(PAD, PAD, PAD, PAD);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < len ? xs[j] : PAD;
        }
        for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
            unsigned int j = threadIdx.x + (4 * VEC_IN_REGS + k) * blockDim.x;
            stash_f[k * blockDim.x + threadIdx.x] = j < len ? xs[j] : PAD;
        }
    }
    // The address of stashed float k of this thread, in the element order above.
    auto stashed = [&](int k) -> float& {
        return vec ? reinterpret_cast<float*>(&stash[(k / 4) * blockDim.x + threadIdx.x])[k % 4]
                   : stash_f[k * blockDim.x + threadIdx.x];
    };

    // The thread's own max, then its exponentials, kept in place of x.
    float m = LOWEST;
#pragma unroll
    for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
        m = fmaxf(m, v[k]);
    }
#pragma unroll 4
    for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
        m = fmaxf(m, stashed(k));
    }
    float d = 0.0f;
#pragma unroll
    for (int k = 0; k < 4 * VEC_IN_REGS; ++k) {
        v[k] = expf(v[k] - m);
        d += v[k];
    }
#pragma unroll 4
    for (int k = 0; k < 4 * VEC_IN_SMEM; ++k) {
        float e = expf(stashed(k) - m);
        stashed(k) = e;
        d += e;
    }
    MaxSum block = block_merge({m, d});

    if (threadIdx.x == 0) {
        partial = block;
    }
    // Every block's partial is written (and every block has started) before
    // anyone reads another's shared memory.
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    unsigned int lane = threadIdx.x % 32;
    MaxSum other = {LOWEST, 0.0f};
    if (lane < CLUSTER) {
        other = *static_cast<MaxSum*>(__cluster_map_shared_rank(&partial, lane));
    }
    MaxSum total = warp_merge(other);
    // Done reading remote memory; the wait at the end keeps this block's
    // shared memory alive until all blocks have read it.
    __cluster_barrier_arrive();

    float scale = expf(m - total.m) / total.d;
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
        for (int k = 0; k < VEC_IN_REGS + VEC_IN_SMEM; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < len / 4) {
                float4 t = k < VEC_IN_REGS
                               ? make_float4(v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3])
                               : stash[(k - VEC_IN_REGS) * blockDim.x + threadIdx.x];
                y4[i] = make_float4(t.x * scale, t.y * scale, t.z * scale, t.w * scale);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < len) {
                float t = k < 4 * VEC_IN_REGS ? v[k] : stash_f[(k - 4 * VEC_IN_REGS) * blockDim.x + threadIdx.x];
                ys[j] = t * scale;
            }
        }
    }
    __cluster_barrier_wait();
}
