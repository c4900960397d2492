/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# lane_offsets.cu (32 copies, 32 KiB a block) with 2 to 6 blocks of 256
# threads per SM: six is the most that fit.
[sweep]
BPS = [2, 3, 4, 5, 6]
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096), sms * BPS)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of lane_offsets.cu; only the grid changes.
#include "lane_offsets.cu"
