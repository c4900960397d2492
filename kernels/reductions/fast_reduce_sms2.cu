/*+++
problem = "sum_f32"
sizes = ["2^22", "2^24", "2^26", "2^28", "2^30"]
# fast_reduce.cu's kernel, unchanged, on a grid of two 1024-thread blocks
# per SM without the rounding down to a power of two: 264 blocks on the
# H200's 132 SMs, where fast_reduce.cu launches 256. Up to 2^20 elements
# both grids are one block per 4096 elements, so the sizes start at 2^22.
[[launch]]
kernel = "reduce_fast"
grid = "min(ceil_div(n, 4096), sms * 2)"
block = 1024
args = ["input", "out", "n"]
+++*/

// The kernel of fast_reduce.cu, included whole: only the grid differs. At
// 2^28 the 2^19 warp tiles do not divide evenly among 264 * 32 warps, so
// some warps read one tile more than others; every SM holds two blocks.
#include "fast_reduce.cu"
