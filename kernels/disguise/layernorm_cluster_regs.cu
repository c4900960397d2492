/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows too long for one SM: 2^16 and 2^18 floats. Rows up to
# 8 x 32 x 1024 = 262144 floats fit.
sizes = ["2^14", "2^16", "2^18"]
# A cluster of 8 blocks per row (the grid is a multiple of 8); each block
# keeps an eighth of the row in registers, 32 floats per thread.
[[launch]]
kernel = "layernorm_cluster_regs"
grid = "8 * rows"
block = "min(1024, 32 * ceil_div(cols, 8192))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cached_block spread over a thread-block cluster (sm_90): each
// block holds its slice of the row in registers, takes exact two-pass
// moments per thread, and the blocks exchange their moments through
// distributed shared memory. x is read once.

#define CLUSTER 8                          // blocks per row; the 8 in the grid
#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

#include "rows_layernorm.cuh"

// Whether register k holds an element of the slice. Register k holds
// element 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4 with float4
// loads, threadIdx.x + k * blockDim.x without; with float4 loads the test
// is per load, shared by four registers.
__device__ bool in_slice(int k, bool vec, unsigned int len) {
    return vec ? threadIdx.x + (k / 4) * blockDim.x < len / 4 : threadIdx.x + k * blockDim.x < len;
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(1024)
    layernorm_cluster_regs(const float* __restrict__ x, const float* __restrict__ weight,
                           const float* __restrict__ bias, float* __restrict__ y, float eps,
                           unsigned int rows, unsigned int cols) {
    // This block's moments; the other blocks of the cluster read them.
    __shared__ Moments partial;

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

    // Elements past the slice's end read as 0 and are left out of the counts.
    float v[PER_THREAD];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xs);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < len / 4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < len ? xs[j] : 0.0f;
        }
    }

    // Exact two-pass moments of the thread's values, merged over the block.
    float n = 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        n += in_slice(k, vec, len) ? 1.0f : 0.0f;
        sum += v[k];
    }
    float local_mean = n > 0.0f ? sum / n : 0.0f;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        float dev = in_slice(k, vec, len) ? v[k] - local_mean : 0.0f;
        m2 += dev * dev;
    }
    Moments block = block_merge({n, local_mean, m2});

    if (threadIdx.x == 0) {
        partial = block;
    }
    // Every block's moments are written (and every block has started)
    // before anyone reads another's shared memory.
    __cluster_barrier_arrive();
    __cluster_barrier_wait();

    // Lane r of each warp fetches block r's moments; the butterfly merges
    // the eight and leaves the row's moments in every lane.
    unsigned int lane = threadIdx.x % 32;
    Moments other = {0.0f, 0.0f, 0.0f};
    if (lane < CLUSTER) {
        other = *static_cast<Moments*>(__cluster_map_shared_rank(&partial, lane));
    }
    Moments total = warp_merge(other);
    // Done reading remote memory. The matching wait at the end keeps this
    // block's shared memory alive until all blocks have read it.
    __cluster_barrier_arrive();

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = total.mean;
    float rstd = rsqrtf(total.m2 / cols + eps);
    const float* ws = weight + begin;
    const float* bs = bias + begin;
    if (vec) {
        const float4* w4 = reinterpret_cast<const float4*>(ws);
        const float4* b4 = reinterpret_cast<const float4*>(bs);
        float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < len / 4) {
                float4 w = w4[i], b = b4[i];
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
            if (j < len) {
                ys[j] = fmaf((v[k] - mean) * rstd, ws[j], bs[j]);
            }
        }
    }
    __cluster_barrier_wait();
}
