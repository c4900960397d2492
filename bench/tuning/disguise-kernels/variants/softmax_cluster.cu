/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows too long for one SM: 2^16 and 2^18 floats (256 KiB and
# 1 MiB). Rows up to 8 x 227 KiB (about 464k floats) fit.
sizes = ["2^16", "2^18"]
# A cluster of 8 blocks per row (the grid is a multiple of 8); each block
# keeps an eighth of the row in shared memory.
[[launch]]
kernel = "softmax_cluster"
grid = "8 * rows"
block = "min(512, 32 * ceil_div(cols, 1024))"
shared = "16 * ceil_div(cols, 32)"
args = ["x", "y", "rows", "cols"]
+++*/

// A row that does not fit in one SM is split over a thread-block cluster
// (sm_90). Each block copies its slice into shared memory once, finds the
// slice's (max, sum), and reads the other blocks' partials straight from
// their shared memory (distributed shared memory). x is read once.

#define CLUSTER 8  // blocks per row; also the 8 in the header's grid

// -FLT_MAX rather than -infinity: an empty partial then rescales by
// exp(-FLT_MAX - m) = 0 instead of exp(-inf + inf) = NaN.
#define LOWEST (-3.402823466e38f)

struct MaxSum {
    float m;
    float d;
};

__device__ MaxSum merge(MaxSum a, MaxSum b) {
    float m = fmaxf(a.m, b.m);
    return {m, a.d * expf(a.m - m) + b.d * expf(b.m - m)};
}

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

// A 16-byte copy from global to shared memory that does not pass through
// registers: a thread can have many in flight and wait for them once.
__device__ void copy16_async(void* dst_shared, const void* src_global) {
    unsigned int dst = (unsigned int)__cvta_generic_to_shared(dst_shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src_global) : "memory");
}

__device__ void wait_async_copies() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(512)
    softmax_cluster(const float* __restrict__ x, float* __restrict__ y, unsigned int rows,
                    unsigned int cols) {
    extern __shared__ float4 slice4[];
    float* slice = reinterpret_cast<float*>(slice4);
    // This block's (max, sum); the other blocks of the cluster read it.
    __shared__ MaxSum partial;

    // ANCHOR: slice
    // Slices are a multiple of 4 floats, so with cols % 4 == 0 every slice
    // starts on a 16-byte boundary. Short rows leave the last blocks with
    // nothing, but they still take part in the cluster barriers below.
    unsigned int rank = __clusterRelativeBlockRank();
    size_t row = blockIdx.x / CLUSTER;
    unsigned int per_block = 4 * ((cols + 4 * CLUSTER - 1) / (4 * CLUSTER));
    unsigned int begin = min(cols, rank * per_block);
    unsigned int len = min(cols - begin, per_block);
    const float* xs = x + row * cols + begin;
    float* ys = y + row * cols + begin;
    bool vec = cols % 4 == 0;
    // ANCHOR_END: slice

    // Every thread later reads back exactly the elements it copied, so its
    // own wait is enough; no block barrier is needed here.
    if (vec) {
        for (unsigned int i = threadIdx.x; i < len / 4; i += blockDim.x) {
            copy16_async(&slice4[i], xs + 4 * i);
        }
        wait_async_copies();
    } else {
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            slice[j] = xs[j];
        }
    }

    // The thread's own max, then exp(x - m) stored in place of x: one exp
    // per element.
    float m = LOWEST;
    float d = 0.0f;
    if (vec) {
        for (unsigned int i = threadIdx.x; i < len / 4; i += blockDim.x) {
            float4 t = slice4[i];
            m = fmaxf(fmaxf(m, fmaxf(t.x, t.y)), fmaxf(t.z, t.w));
        }
        for (unsigned int i = threadIdx.x; i < len / 4; i += blockDim.x) {
            float4 t = slice4[i];
            t = make_float4(expf(t.x - m), expf(t.y - m), expf(t.z - m), expf(t.w - m));
            d += (t.x + t.y) + (t.z + t.w);
            slice4[i] = t;
        }
    } else {
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            m = fmaxf(m, slice[j]);
        }
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            slice[j] = expf(slice[j] - m);
            d += slice[j];
        }
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
        float4* ys4 = reinterpret_cast<float4*>(ys);
        for (unsigned int i = threadIdx.x; i < len / 4; i += blockDim.x) {
            float4 t = slice4[i];
            ys4[i] = make_float4(t.x * scale, t.y * scale, t.z * scale, t.w * scale);
        }
    } else {
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            ys[j] = slice[j] * scale;
        }
    }
    __cluster_barrier_wait();
}
