// The tile of the first single-pass scans (lookback_serial.cu,
// lookback_warp.cu): the tile of problems/scan_f32.cu, 256 threads of 16
// elements, 4096 elements, loaded one float a lane. Warp w owns 512
// consecutive elements of the tile and reads them 32 at a time (128
// contiguous bytes per load), scanning each 32 with shuffles and carrying
// the total from one to the next. What the tile looks back with is the
// including file's: LOOK_BACK(status, t, lane) is called by warp 0 (the
// whole warp) for every tile but tile 0, and returns the sum of the tiles
// before t in lane 0.

#include "lookback.cuh"

#define THREADS 256
#define PER_THREAD 16
#define WARPS (THREADS / 32)
#define SCALAR_TILE (THREADS * PER_THREAD)

// ANCHOR: tile
__device__ __forceinline__ void scan_scalar_tile(const float* __restrict__ x, float* __restrict__ y,
                                                 unsigned int n, unsigned int* counter,
                                                 unsigned long long* status) {
    __shared__ unsigned int tile_s;
    __shared__ float warp_offset[WARPS];
    __shared__ float tile_offset;
    // The tile number, in the order blocks start: every tile before this
    // one belongs to a block that is running or done, so waiting on it
    // cannot deadlock, whatever order the hardware starts blocks in.
    if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned int t = tile_s;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned int start = t * SCALAR_TILE + warp * (32 * PER_THREAD) + lane;
    float v[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const unsigned int i = start + 32 * k;
        v[k] = i < n ? x[i] : 0.0f;
    }
    float carry = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const float b = __shfl_up_sync(0xffffffffu, v[k], d);
            if (lane >= d) v[k] += b;
        }
        v[k] += carry;
        carry = __shfl_sync(0xffffffffu, v[k], 31);
    }
    if (lane == 31) warp_offset[warp] = carry;
    __syncthreads();
    if (warp == 0) {
        // Lane 0 turns the warp totals into each warp's offset and the
        // tile's total, publishes the total, and the warp looks back.
        float total = 0.0f;
        if (lane == 0) {
            for (int w = 0; w < WARPS; ++w) {
                const float s = warp_offset[w];
                warp_offset[w] = total;
                total += s;
            }
            publish(status, t, t == 0 ? PREFIX : AGGREGATE, total);
        }
        const float exclusive = t == 0 ? 0.0f : LOOK_BACK(status, t, lane);
        if (lane == 0) {
            if (t > 0) publish(status, t, PREFIX, exclusive + total);
            tile_offset = exclusive;
        }
    }
    __syncthreads();
    const float offset = tile_offset + warp_offset[warp];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const unsigned int i = start + 32 * k;
        if (i < n) y[i] = v[k] + offset;
    }
}
// ANCHOR_END: tile
