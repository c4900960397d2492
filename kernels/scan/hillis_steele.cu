/*+++
problem = "scan_f32"
sizes = ["2^20", "2^24"]
# Scan-then-propagate in three launches, timed as one unit. Launch 1:
# one block of 1024 threads per tile of 1024 elements, one element a
# thread, scanned in shared memory by Hillis and Steele's doubling steps;
# it writes y and each tile's total. Launches 2 and 3 (propagate.cuh)
# scan the totals and add each tile's offset.
[scratch]
sums = "grid0"
[[launch]]
kernel = "scan_tiles_hillis_steele"
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

// Hillis and Steele (1986): in the step with distance d every element
// adds the one d places before it, so after the steps d = 1, 2, 4, ...,
// 512 element t holds the sum of elements 0 to t: 10 steps, each with
// every thread at work. A step reads the values of the step before, so
// they alternate between two buffers, with a barrier after each.
// ANCHOR: kernel
extern "C" __global__ void scan_tiles_hillis_steele(const float* __restrict__ x, float* __restrict__ y,
                                                    float* __restrict__ sums, unsigned int n) {
    __shared__ float buf[2][TILE];
    const unsigned int t = threadIdx.x, i = blockIdx.x * TILE + t;
    buf[0][t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    unsigned int in = 0;
    for (unsigned int d = 1; d < TILE; d *= 2) {
        float v = buf[in][t];
        if (t >= d) v += buf[in][t - d];
        buf[1 - in][t] = v;
        in = 1 - in;
        __syncthreads();
    }
    const float v = buf[in][t];
    if (i < n) y[i] = v;
    if (t == TILE - 1) sums[blockIdx.x] = v;
}
// ANCHOR_END: kernel
