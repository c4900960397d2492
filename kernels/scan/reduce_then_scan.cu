/*+++
problem = "scan_f32"
sizes = ["2^24", "2^26", "2^28", "2^30"]
# Reduce-then-scan in three launches, timed as one unit, over tiles of
# 4096 elements (256 threads of 4 float4). At most eight blocks per SM;
# block b owns a run of whole tiles, tiles b * T / G to (b + 1) * T / G
# of T tiles and G blocks. Launch 1 sums each block's run into
# partials[b]; launch 2 (one block) scans the partials; launch 3 reads
# the runs again and scans them, starting from the partials of the blocks
# before.
[scratch]
partials = "grid0"
[[launch]]
kernel = "reduce_runs"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "partials", "n"]
[[launch]]
kernel = "scan_partials"
grid = 1
block = 1024
args = ["partials", "grid0"]
[[launch]]
kernel = "scan_runs"
grid = "grid0"
block = 256
args = ["x", "y", "partials", "n"]
+++*/

#define THREADS 256
#define ITEMS 4
#include "vec_tile.cuh"

// Tiles first to last (exclusive) of block b of the grid.
__device__ __forceinline__ void tiles_of(unsigned int n, unsigned int& first, unsigned int& last) {
    const unsigned long long tiles = (n + VEC_TILE - 1) / VEC_TILE;
    first = static_cast<unsigned int>(tiles * blockIdx.x / gridDim.x);
    last = static_cast<unsigned int>(tiles * (blockIdx.x + 1) / gridDim.x);
}

// Launch 1: the sum of each block's run of tiles.
// ANCHOR: reduce
extern "C" __global__ void __launch_bounds__(THREADS)
    reduce_runs(const float* __restrict__ x, float* __restrict__ partials, unsigned int n) {
    __shared__ float run_total[WARPS];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int first, last;
    tiles_of(n, first, last);
    float sum = 0.0f;
    for (unsigned int t = first; t < last; ++t) {
        float4 v[ITEMS];
        load_run(x, t * VEC_TILE + warp * WARP_RUN, n, lane, v);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    float before, total;
    block_offsets(run_total, warp_total(sum), lane, warp, before, total);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}
// ANCHOR_END: reduce

// Launch 2: one block of 1024 threads scans the partials in place
// (inclusive), 1024 at a time.
extern "C" __global__ void scan_partials(float* partials, unsigned int count) {
    __shared__ float warp_sum_s[32];
    __shared__ float carry_s;
    const unsigned int t = threadIdx.x, lane = t % 32, warp = t / 32;
    float carry = 0.0f;
    for (unsigned int start = 0; start < count; start += 1024) {
        const unsigned int i = start + t;
        float v = i < count ? partials[i] : 0.0f;
#pragma unroll
        for (unsigned int d = 1; d < 32; d *= 2) {
            const float up = __shfl_up_sync(0xffffffffu, v, d);
            if (lane >= d) v += up;
        }
        if (lane == 31) warp_sum_s[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float w = warp_sum_s[lane];
#pragma unroll
            for (unsigned int d = 1; d < 32; d *= 2) {
                const float up = __shfl_up_sync(0xffffffffu, w, d);
                if (lane >= d) w += up;
            }
            warp_sum_s[lane] = w;
            if (lane == 31) carry_s = carry + w;
        }
        __syncthreads();
        if (warp > 0) v += warp_sum_s[warp - 1];
        if (i < count) partials[i] = carry + v;
        carry = carry_s;
        __syncthreads();
    }
}

// Launch 3: each block scans its run again, tile by tile, starting from
// the sum of every run before its own.
// ANCHOR: scan
extern "C" __global__ void __launch_bounds__(THREADS)
    scan_runs(const float* __restrict__ x, float* __restrict__ y, const float* __restrict__ partials,
              unsigned int n) {
    __shared__ float run_total[2][WARPS];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int first, last;
    tiles_of(n, first, last);
    float carry = blockIdx.x > 0 ? partials[blockIdx.x - 1] : 0.0f;
    for (unsigned int t = first; t < last; ++t) {
        const unsigned int run = t * VEC_TILE + warp * WARP_RUN;
        float4 v[ITEMS];
        load_run(x, run, n, lane, v);
        const float mine = scan_run(v, lane);
        float before, total;
        // Two buffers, so one barrier a tile: a warp may write the next
        // tile's totals while a slower one still reads this tile's.
        block_offsets(run_total[t % 2], mine, lane, warp, before, total);
        store_run(y, run, n, lane, v, carry + before);
        carry += total;
    }
}
// ANCHOR_END: scan
