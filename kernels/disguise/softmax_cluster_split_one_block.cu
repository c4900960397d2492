/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^16", "2^18"]
# softmax_cluster_split's kernel and launch, except that each block asks
# for 120 KiB of dynamic shared memory, more than half of the 228 KiB of an
# H200's SM: one block fits an SM, where the split kernel fits two. The
# kernel uses the first 128 bytes a thread of it (at most 64 KiB), as there.
[[launch]]
kernel = "softmax_cluster_split"
grid = "8 * rows"
block = "min(512, 32 * ceil_div(cols, 16384))"
shared = "120 * 1024"
args = ["x", "y", "rows", "cols"]
+++*/

// The control for the split kernel's reading: same code, one block an SM.
// ANCHOR: padded
#include "softmax_cluster_split.cu"
// ANCHOR_END: padded
