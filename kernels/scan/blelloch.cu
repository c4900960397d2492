/*+++
problem = "scan_f32"
sizes = ["2^20", "2^24"]
# Scan-then-propagate in three launches, timed as one unit. Launch 1:
# one block of 512 threads per tile of 1024 elements, two elements a
# thread, scanned in shared memory by Blelloch's up-sweep and down-sweep;
# it writes y and each tile's total. Launches 2 and 3 (propagate.cuh)
# scan the totals and add each tile's offset.
[scratch]
sums = "grid0"
[[launch]]
kernel = "scan_tiles_blelloch"
grid = "ceil_div(n, 1024)"
block = 512
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

// Blelloch (1990): a work-efficient scan in two sweeps over a balanced
// tree laid on the array. The up-sweep adds pairs, as a reduction does:
// at the level with stride s, thread k adds s[s(2k+1) - 1] into
// s[s(2k+2) - 1], so the last slot ends with the tile's total. The
// down-sweep clears that slot and walks back down: each right child
// passes its value to the left child and takes the sum of both, which
// leaves the exclusive scan. 2 (1024 - 1) additions, and 1024 more to
// make the scan inclusive, against Hillis and Steele's 9217; but twice
// the steps, and near the top of the tree only a few threads work.
// ANCHOR: kernel
extern "C" __global__ void scan_tiles_blelloch(const float* __restrict__ x, float* __restrict__ y,
                                               float* __restrict__ sums, unsigned int n) {
    __shared__ float s[TILE];
    const unsigned int t = threadIdx.x, base = blockIdx.x * TILE;
    // Each thread loads two elements, 512 apart, so a warp's loads are 32
    // neighbouring floats; it keeps them to turn the exclusive scan into
    // an inclusive one at the end.
    const unsigned int a = t, b = t + TILE / 2;
    const float xa = base + a < n ? x[base + a] : 0.0f;
    const float xb = base + b < n ? x[base + b] : 0.0f;
    s[a] = xa;
    s[b] = xb;
    // Up-sweep: log2(1024) = 10 levels, 512 additions at the first, 1 at
    // the last.
    unsigned int stride = 1;
    for (unsigned int active = TILE / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            const unsigned int right = stride * (2 * t + 2) - 1;
            s[right] += s[right - stride];
        }
        stride *= 2;
    }
    __syncthreads();
    if (t == 0) {
        sums[blockIdx.x] = s[TILE - 1];
        s[TILE - 1] = 0.0f;
    }
    // Down-sweep: the same levels in the other order.
    for (unsigned int active = 1; active < TILE; active *= 2) {
        stride /= 2;
        __syncthreads();
        if (t < active) {
            const unsigned int right = stride * (2 * t + 2) - 1, left = right - stride;
            const float l = s[left];
            s[left] = s[right];
            s[right] += l;
        }
    }
    __syncthreads();
    if (base + a < n) y[base + a] = s[a] + xa;
    if (base + b < n) y[base + b] = s[b] + xb;
}
// ANCHOR_END: kernel
