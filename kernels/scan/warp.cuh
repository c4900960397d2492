// Warp-wide helpers shared by the single-pass and reduce-then-scan files.
#ifndef SCAN_WARP_CUH
#define SCAN_WARP_CUH

// The sum of v over the warp, in every lane.
__device__ __forceinline__ float warp_total(float v) {
#pragma unroll
    for (unsigned int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

#endif
