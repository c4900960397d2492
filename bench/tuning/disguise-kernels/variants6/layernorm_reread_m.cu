/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Any row length; meant for 2^10 to 2^14 floats.
sizes = ["2^10", "2^12", "2^14"]
# One row per block; VEC float4 a thread per step, so a block of
# cols / (4 VEC) threads (at least a warp, at most 256) covers the row in
# one step; longer rows take several.
[[launch]]
kernel = "layernorm_reread_m"
grid = "rows"
block = "min(256, 32 * ceil_div(cols, 128 * 2))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// Two passes over x, as torch.compile's looped reduction does for rows of
// 2^12: the first reads the row and takes its moments, the second reads it
// again (from the caches, we expected), normalises and stores. Nothing of the row is
// held in registers between the passes, so a thread needs few registers
// and an SM holds the most threads.
// This file (m): (a) with (k)'s loads.

#define VEC 2      // float4 a thread per step
#ifndef VEC2
#define VEC2 VEC    // float4 a thread a step in the second pass
#endif
#define HINTS 2  // 1: first read keeps x in L2 (evict_last), second streams it (evict_first);
                      // 2: as Triton lowers eviction_policy: L1 and L2 evict_last, then L1 and L2 evict_first

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

__device__ __forceinline__ float4 load_keep(const float4* p, unsigned long long policy) {
    float4 v;
#if HINTS == 2
    asm volatile("ld.global.L1::evict_last.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(policy));
#elif HINTS
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(policy));
#else
    v = *p;
#endif
    return v;
}

__device__ __forceinline__ float4 load_last_use(const float4* p) {
#if HINTS == 2
    unsigned long long first;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(first));
    float4 v;
    asm volatile("ld.global.L1::evict_first.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(first));
    return v;
#elif HINTS
    return __ldcs(p);
#else
    return *p;
#endif
}

// Four new values into a running partial: their own mean and m2, then
// Chan's merge (one division per float4, not per value).
__device__ __forceinline__ Moments add4(Moments s, float4 v) {
    float m4 = 0.25f * ((v.x + v.y) + (v.z + v.w));
    float dx = v.x - m4, dy = v.y - m4, dz = v.z - m4, dw = v.w - m4;
    return merge(s, {4.0f, m4, (dx * dx + dy * dy) + (dz * dz + dw * dw)});
}

extern "C" __global__ void __launch_bounds__(256, 6) layernorm_reread_m(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    unsigned long long policy = 0;
#if HINTS
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
    Moments s = {0.0f, 0.0f, 0.0f};
    if (cols % 4 == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        unsigned int n4 = cols / 4;
        for (unsigned int base = 0; base < n4; base += VEC * blockDim.x) {
            float4 q[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                unsigned int i = base + threadIdx.x + k * blockDim.x;
                if (i < n4) {
                    q[k] = load_keep(x4 + i, policy);
                }
            }
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (base + threadIdx.x + k * blockDim.x < n4) {
                    s = add4(s, q[k]);
                }
            }
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            s = add(s, xr[j]);
        }
    }
    Moments row = block_merge(s);
    float mean = row.mean;
    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float rstd = rsqrtf(row.m2 / cols + eps);

    if (cols % 4 == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const float4* w4 = reinterpret_cast<const float4*>(weight);
        const float4* b4 = reinterpret_cast<const float4*>(bias);
        float4* y4 = reinterpret_cast<float4*>(yr);
        unsigned int n4 = cols / 4;
        for (unsigned int base = 0; base < n4; base += VEC2 * blockDim.x) {
            float4 q[VEC2], w[VEC2], b[VEC2];
#pragma unroll
            for (int k = 0; k < VEC2; ++k) {
                unsigned int i = base + threadIdx.x + k * blockDim.x;
                if (i < n4) {
                    q[k] = load_last_use(x4 + i);
                    w[k] = __ldg(w4 + i);
                    b[k] = __ldg(b4 + i);
                }
            }
#pragma unroll
            for (int k = 0; k < VEC2; ++k) {
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
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            yr[j] = fmaf((xr[j] - mean) * rstd, weight[j], bias[j]);
        }
    }
}
