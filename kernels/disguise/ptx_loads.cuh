// Loads of a float4 of x through inline PTX, for the layer norms of
// "Reductions in disguise" that test cache hints: layernorm_evict_first
// with the hints, layernorm_asm_load with the same asm and no hints, so that
// the two differ in the hints alone. (Handing x's pointer to inline asm
// changes what the compiler makes of the rest of the kernel; the control
// measures that part.)
#pragma once

// ANCHOR: plain
// ld.global.nc: the read-only path that loads of a const __restrict__
// pointer take, and no hint.
__device__ __forceinline__ float4 load_asm(const float4* p) {
    float4 v;
    asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
}
// ANCHOR_END: plain

// ANCHOR: evict_first
// An L2 cache policy that marks what it covers evict-first. (On sm_90 the
// .L2::evict_first qualifier cannot be put on the load itself: ptxas takes
// it only on 256-bit loads, which need sm_100.)
__device__ __forceinline__ unsigned long long evict_first_policy() {
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

// The same load as load_asm with the hints Triton gives a tensor at its
// last read (eviction_policy='evict_first'): evict first from L1, and the
// evict-first L2 policy above.
__device__ __forceinline__ float4 load_evict_first(const float4* p, unsigned long long policy) {
    float4 v;
    asm("ld.global.nc.L1::evict_first.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p), "l"(policy));
    return v;
}
// ANCHOR_END: evict_first
