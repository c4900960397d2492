// A tile read as float4: THREADS threads (a multiple of 32) of ITEMS
// float4 each, VEC_TILE = THREADS * 4 * ITEMS elements; the including file
// defines THREADS and ITEMS. Warp w owns the 128 * ITEMS consecutive
// elements from w * 128 * ITEMS on; its k-th load reads 32 neighbouring
// float4 (512 contiguous bytes), lane l the float4 32k + l of the warp's
// run. Each thread scans its float4 (three additions), the warp scans the
// 32 float4 totals of each load with shuffles and carries the total from
// one load to the next, so v ends as the warp's inclusive scan of its run.

#include "warp.cuh"

#define WARPS (THREADS / 32)
#define WARP_RUN (128 * ITEMS)
#define VEC_TILE (THREADS * 4 * ITEMS)

// Loads the warp's run that starts at element `run` (a multiple of 4);
// elements at or past n read as 0.
__device__ __forceinline__ void load_run(const float* __restrict__ x, unsigned int run, unsigned int n,
                                         unsigned int lane, float4 (&v)[ITEMS]) {
    if (run + WARP_RUN <= n) {
        const float4* p = reinterpret_cast<const float4*>(x + run) + lane;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) v[k] = p[32 * k];
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const unsigned int i = run + 4 * (32 * k + lane);
            v[k] = make_float4(i < n ? x[i] : 0.0f, i + 1 < n ? x[i + 1] : 0.0f,
                               i + 2 < n ? x[i + 2] : 0.0f, i + 3 < n ? x[i + 3] : 0.0f);
        }
    }
}

// Stores v + offset for the warp's run, elements at or past n left out.
__device__ __forceinline__ void store_run(float* __restrict__ y, unsigned int run, unsigned int n,
                                          unsigned int lane, const float4 (&v)[ITEMS], float offset) {
    if (run + WARP_RUN <= n) {
        float4* p = reinterpret_cast<float4*>(y + run) + lane;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            p[32 * k] = make_float4(v[k].x + offset, v[k].y + offset, v[k].z + offset, v[k].w + offset);
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const unsigned int i = run + 4 * (32 * k + lane);
            if (i < n) y[i] = v[k].x + offset;
            if (i + 1 < n) y[i + 1] = v[k].y + offset;
            if (i + 2 < n) y[i + 2] = v[k].z + offset;
            if (i + 3 < n) y[i + 3] = v[k].w + offset;
        }
    }
}

// Turns v into the warp's inclusive scan of its run; returns the run's
// total, in every lane.
// ANCHOR: scan_run
__device__ __forceinline__ float scan_run(float4 (&v)[ITEMS], unsigned int lane) {
    float carry = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        v[k].y += v[k].x;
        v[k].z += v[k].y;
        v[k].w += v[k].z;
        // The warp's inclusive scan of the 32 float4 totals ...
        float s = v[k].w;
#pragma unroll
        for (unsigned int d = 1; d < 32; d *= 2) {
            const float up = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += up;
        }
        // ... and each lane's offset: the totals of the loads before this
        // one and of the lanes before it in this one.
        float before = __shfl_up_sync(0xffffffffu, s, 1);
        before = (lane == 0 ? 0.0f : before) + carry;
        v[k].x += before;
        v[k].y += before;
        v[k].z += before;
        v[k].w += before;
        carry += __shfl_sync(0xffffffffu, s, 31);
    }
    return carry;
}
// ANCHOR_END: scan_run

// The block's offsets from the warps' run totals: every thread gets the
// sum of the runs of the warps before its own (`before`) and of all
// (`total`). Called by every thread; `run_total` must hold WARPS floats of
// shared memory. Ends with a barrier, after which the caller may write
// run_total again only after another barrier.
__device__ __forceinline__ void block_offsets(float* run_total, float mine, unsigned int lane,
                                              unsigned int warp, float& before, float& total) {
    if (lane == 0) run_total[warp] = mine;
    __syncthreads();
    before = 0.0f;
    total = 0.0f;
#pragma unroll
    for (unsigned int w = 0; w < WARPS; ++w) {
        const float s = run_total[w];
        if (w < warp) before += s;
        total += s;
    }
}
