/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows too long for one SM: 2^16 and 2^18 floats (256 KiB and
# 1 MiB). Rows up to 8 x 227 KiB (about 464k floats) fit.
sizes = ["2^16", "2^18"]
# A cluster of 8 blocks per row (the grid is a multiple of 8); each block
# keeps an eighth of the row in shared memory.
[[launch]]
kernel = "layernorm_cluster"
grid = "8 * rows"
block = "min(512, 32 * ceil_div(cols, 1024))"
shared = "16 * ceil_div(cols, 32)"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// A row split over a thread-block cluster (sm_90). Each block copies its
// slice into shared memory once, takes exact two-pass moments of the
// slice, and reads the other blocks' moments from their shared memory
// (distributed shared memory). x is read once.

#define CLUSTER 8  // blocks per row; also the 8 in the header's grid

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

// The sum of v over the block, returned to every thread. Each call site
// passes its own slots, so the kernel may call it twice.
__device__ float block_sum(float v, float* warp_sums) {
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
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
    layernorm_cluster(const float* __restrict__ x, const float* __restrict__ weight,
                      const float* __restrict__ bias, float* __restrict__ y, float eps,
                      unsigned int rows, unsigned int cols) {
    extern __shared__ float4 slice4[];
    float* slice = reinterpret_cast<float*>(slice4);
    __shared__ float sums[2][32];
    // This block's moments; the other blocks of the cluster read them.
    __shared__ Moments partial;

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
    // The passes below read floats that other threads copied.
    __syncthreads();

    // ANCHOR: slice_moments
    // Exact two-pass moments of the slice: its mean, then the squared
    // deviations from that mean. Shared memory makes the second pass cheap.
    float sum = 0.0f;
    for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
        sum += slice[j];
    }
    float n = (float)len;
    float slice_sum = block_sum(sum, sums[0]);
    float slice_mean = len > 0 ? slice_sum / n : 0.0f;
    float m2 = 0.0f;
    for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
        float dev = slice[j] - slice_mean;
        m2 += dev * dev;
    }
    m2 = block_sum(m2, sums[1]);
    // ANCHOR_END: slice_moments

    if (threadIdx.x == 0) {
        partial = {n, slice_mean, m2};
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
        for (unsigned int i = threadIdx.x; i < len / 4; i += blockDim.x) {
            float4 v = slice4[i], w = w4[i], b = b4[i];
            y4[i] = make_float4(fmaf((v.x - mean) * rstd, w.x, b.x), fmaf((v.y - mean) * rstd, w.y, b.y),
                                fmaf((v.z - mean) * rstd, w.z, b.z), fmaf((v.w - mean) * rstd, w.w, b.w));
        }
    } else {
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            ys[j] = fmaf((slice[j] - mean) * rstd, ws[j], bs[j]);
        }
    }
    __cluster_barrier_wait();
}
