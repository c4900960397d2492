/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows of 2^10 to 2^14 floats, which fit one block. Rows up to
# 32 x 1024 = 32768 floats fit.
sizes = ["2^10", "2^12", "2^14"]
# One row per block; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers, as in layernorm_cached_block.
[[launch]]
kernel = "layernorm_evict_first"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cached_sums with one change: x is loaded with the cache hints
// that torch.compile's Triton code gives a tensor at its last read
// (eviction_policy='evict_first'): evict first from L1, and from L2 under
// an evict-first cache policy. Each row is read once, so the hints only
// say what is true; the chapter measures whether saying it pays.

#include "layernorm_sums.cuh"

// ANCHOR: evict_first
// An L2 cache policy that marks what it covers evict-first (on sm_90 the
// plain .L2::evict_first qualifier is for 256-bit loads only).
__device__ __forceinline__ unsigned long long evict_first_policy() {
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

// A float4 of x, loaded as Triton loads with eviction_policy='evict_first':
// L1::evict_first and that L2 policy. The load stays on the read-only path
// (.nc) that the plain kernel's loads of a const __restrict__ pointer
// take, and the asm is not volatile, so the compiler may predicate and
// schedule it as it does a plain load: the hints are the only difference.
__device__ __forceinline__ float4 load_evict_first(const float4* p, unsigned long long policy) {
    float4 v;
    asm("ld.global.nc.L1::evict_first.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p), "l"(policy));
    return v;
}
// ANCHOR_END: evict_first

extern "C" __global__ void __launch_bounds__(1024) layernorm_evict_first(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    unsigned long long policy = evict_first_policy();
    layernorm_sums_row(x, weight, bias, y, eps, cols,
                       [policy](const float4* p) { return load_evict_first(p, policy); });
}
