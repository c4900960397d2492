/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# lane_offsets.cu with 1 to 32 copies of the bins per block (COPIES KiB of
# shared memory), lane l counting into copy l % COPIES; as many blocks of
# 256 threads per SM as fit, up to eight: an SM has 228 KiB of shared
# memory and a block reserves 1 KiB besides its own.
[sweep]
COPIES = [1, 2, 4, 8, 16, 32]
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096), sms * min(8, 228 / (COPIES + 1)))"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of lane_offsets.cu, compiled with -DCOPIES=1, 2, ..., 32.
#include "lane_offsets.cu"
