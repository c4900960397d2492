/*+++
problem = "scan_f32"
sizes = ["2^20", "2^24"]
# Scan-then-propagate in three launches, timed as one unit. Launch 1:
# one block of 1024 threads per tile of 1024 elements, one element a
# thread, scanned with warp shuffles: each warp scans its 32 elements,
# warp 0 scans the 32 warp totals; it writes y and each tile's total.
# Launches 2 and 3 (propagate.cuh) scan the totals and add each tile's
# offset.
[scratch]
sums = "grid0"
[[launch]]
kernel = "scan_tiles_warp"
grid = "ceil_div(n, 1024)"
block = 1024
args = ["x", "y", "sums", "n"]
[[launch]]
kernel = "scan_tile_sums"
grid = 1
block = 1024
args = ["sums", "grid0"]
[[launch]]
kernel = "add_tile_offsets"
grid = "grid0"
block = 1024
args = ["y", "sums", "n"]
+++*/

#include "propagate.cuh"

// The same doubling steps as Hillis and Steele's, but inside a warp, where
// __shfl_up_sync hands each lane the value of the lane d below it in
// registers: no shared memory and no barrier between steps. Shared memory
// carries only the 32 warp totals, and the block waits at two barriers
// instead of eleven.
// ANCHOR: kernel
extern "C" __global__ void scan_tiles_warp(const float* __restrict__ x, float* __restrict__ y,
                                           float* __restrict__ sums, unsigned int n) {
    __shared__ float warp_total[32];
    const unsigned int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const unsigned int i = blockIdx.x * TILE + t;
    float v = warp_inclusive(i < n ? x[i] : 0.0f, lane);
    if (lane == 31) warp_total[warp] = v;
    __syncthreads();
    if (warp == 0) warp_total[lane] = warp_inclusive(warp_total[lane], lane);
    __syncthreads();
    if (warp > 0) v += warp_total[warp - 1];
    if (i < n) y[i] = v;
    if (t == TILE - 1) sums[blockIdx.x] = v;
}
// ANCHOR_END: kernel
