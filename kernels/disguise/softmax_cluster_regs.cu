/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows too long for one SM: 2^16 and 2^18 floats. Rows up to
# 8 x 32 x 1024 = 262144 floats fit.
sizes = ["2^14", "2^16", "2^18"]
# A cluster of 8 blocks per row (the grid is a multiple of 8); each block
# keeps an eighth of the row in registers, 32 floats per thread.
[[launch]]
kernel = "softmax_cluster_regs"
grid = "8 * rows"
block = "min(1024, 32 * ceil_div(cols, 8192))"
args = ["x", "y", "rows", "cols"]
+++*/

// softmax_cached_block spread over a thread-block cluster (sm_90): each
// block holds its slice of the row in registers, and the blocks exchange
// their (max, sum) through distributed shared memory. x is read once.

#define CLUSTER 8                          // blocks per row; the 8 in the grid
#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

#include "rows_softmax.cuh"

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(1024)
    softmax_cluster_regs(const float* __restrict__ x, float* __restrict__ y, unsigned int rows,
                         unsigned int cols) {
    // This block's (max, sum); the other blocks of the cluster read it.
    __shared__ MaxSum partial;

    // Slices are a multiple of 4 floats, so with cols % 4 == 0 every slice
    // starts on a 16-byte boundary. Short rows leave the last blocks with
    // nothing, but they still take part in the cluster barriers below.
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

    // Register k holds element 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4
    // of the slice with float4 loads, threadIdx.x + k * blockDim.x without.
    float v[PER_THREAD];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xs);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < len / 4 ? x4[i] : make_float4(PAD, PAD, PAD, PAD);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < len ? xs[j] : PAD;
        }
    }

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
    MaxSum block = block_merge({m, d});

    // ANCHOR: cluster
    if (threadIdx.x == 0) {
        partial = block;
    }
    // Every block's partial is written (and every block has started) before
    // anyone reads another's shared memory.
    __cluster_barrier_arrive();
    __cluster_barrier_wait();

    // Lane r of each warp fetches block r's partial; the butterfly merges
    // the eight and leaves the row's (max, sum) in every lane.
    unsigned int lane = threadIdx.x % 32;
    MaxSum other = {LOWEST, 0.0f};
    if (lane < CLUSTER) {
        other = *static_cast<MaxSum*>(__cluster_map_shared_rank(&partial, lane));
    }
    MaxSum total = warp_merge(other);
    // Done reading remote memory. The matching wait at the end keeps this
    // block's shared memory alive until all blocks have read it.
    __cluster_barrier_arrive();
    // ANCHOR_END: cluster

    float scale = expf(m - total.m) / total.d;
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < len / 4) {
                y4[i] = make_float4(v[4 * k] * scale, v[4 * k + 1] * scale,
                                    v[4 * k + 2] * scale, v[4 * k + 3] * scale);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < len) {
                ys[j] = v[k] * scale;
            }
        }
    }
    __cluster_barrier_wait();
}
