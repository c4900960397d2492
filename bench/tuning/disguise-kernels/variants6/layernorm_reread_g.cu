/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for the longest rows, 2^16 and 2^18 floats; any length works.
sizes = ["2^16", "2^18"]
# A cluster of 16 blocks a row, each taking a slice; 2 float4 a
# thread a step.
[[launch]]
kernel = "layernorm_reread_g"
grid = "16 * rows"
block = "min(512, 32 * ceil_div(cols, 16 * 256))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// The two-pass (L2 re-read) layer norm of layernorm_reread_a for rows that
// one block should not take alone: a cluster of blocks splits the row, each
// block takes its slice's moments in the first pass, the cluster merges
// them through distributed shared memory, and each block reads its slice
// again (from L2) to normalise it. This file (g): (f) with 16 blocks a row (a non-portable cluster size), 64 KiB slices, about 17 MiB in L2.

#define CLUSTER 16
#define VEC 2

// ---- kernels/disguise/rows_layernorm.cuh, inlined ----
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
// ---- end ----

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(512, 2)
    layernorm_reread_g(const float* __restrict__ x, const float* __restrict__ weight,
                  const float* __restrict__ bias, float* __restrict__ y, float eps,
                  unsigned int rows, unsigned int cols) {
    __shared__ Moments partial;
    unsigned int rank = __clusterRelativeBlockRank();
    size_t row = blockIdx.x / CLUSTER;
    // Slices are whole float4s on the vector path.
    unsigned int per_block = 4 * ((cols + 4 * CLUSTER - 1) / (4 * CLUSTER));
    unsigned int begin = min(cols, rank * per_block);
    unsigned int len = min(cols - begin, per_block);
    const float* xs = x + row * cols + begin;
    float* ys = y + row * cols + begin;
    bool vec = cols % 4 == 0;
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));

    Moments s = {0.0f, 0.0f, 0.0f};
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xs);
        unsigned int n4 = len / 4;
        for (unsigned int base = 0; base < n4; base += VEC * blockDim.x) {
            float4 q[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                unsigned int i = base + threadIdx.x + k * blockDim.x;
                if (i < n4) {
                    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                                 : "=f"(q[k].x), "=f"(q[k].y), "=f"(q[k].z), "=f"(q[k].w)
                                 : "l"(x4 + i), "l"(policy));
                }
            }
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (base + threadIdx.x + k * blockDim.x < n4) {
                    float m4 = 0.25f * ((q[k].x + q[k].y) + (q[k].z + q[k].w));
                    float dx = q[k].x - m4, dy = q[k].y - m4, dz = q[k].z - m4, dw = q[k].w - m4;
                    s = merge(s, {4.0f, m4, (dx * dx + dy * dy) + (dz * dz + dw * dw)});
                }
            }
        }
    } else {
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            s = add(s, xs[j]);
        }
    }
    Moments block = block_merge(s);
    if (threadIdx.x == 0) {
        partial = block;
    }
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    unsigned int lane = threadIdx.x % 32;
    Moments other = {0.0f, 0.0f, 0.0f};
    if (lane < CLUSTER) {
        other = *static_cast<Moments*>(__cluster_map_shared_rank(&partial, lane));
    }
    Moments total = warp_merge(other);
    __cluster_barrier_arrive();

    float mean = total.mean;
    float rstd = rsqrtf(total.m2 / cols + eps);
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xs);
        const float4* w4 = reinterpret_cast<const float4*>(weight + begin);
        const float4* b4 = reinterpret_cast<const float4*>(bias + begin);
        float4* y4 = reinterpret_cast<float4*>(ys);
        unsigned int n4 = len / 4;
        for (unsigned int base = 0; base < n4; base += VEC * blockDim.x) {
            float4 q[VEC], w[VEC], b[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                unsigned int i = base + threadIdx.x + k * blockDim.x;
                if (i < n4) {
                    q[k] = __ldcs(x4 + i);
                    w[k] = __ldg(w4 + i);
                    b[k] = __ldg(b4 + i);
                }
            }
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                unsigned int i = base + threadIdx.x + k * blockDim.x;
                if (i < n4) {
                    y4[i] = make_float4(fmaf((q[k].x - mean) * rstd, w[k].x, b[k].x),
                                        fmaf((q[k].y - mean) * rstd, w[k].y, b[k].y),
                                        fmaf((q[k].z - mean) * rstd, w[k].z, b[k].z),
                                        fmaf((q[k].w - mean) * rstd, w[k].w, b[k].w));
                }
            }
        }
    } else {
        for (unsigned int j = threadIdx.x; j < len; j += blockDim.x) {
            ys[j] = fmaf((xs[j] - mean) * rstd, weight[begin + j], bias[begin + j]);
        }
    }
    // Keeps this block's shared memory alive until every block has read it.
    __cluster_barrier_wait();
}
