/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# lane_offsets.cu (32 copies, six blocks of 256 threads per SM at most) with
# 1, 2 or 4 uint4 loads per thread per trip, issued before any is counted.
[sweep]
LOADS = [1, 2, 4]
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096 * LOADS), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of lane_offsets.cu, compiled with -DLOADS=1, 2 and 4.
#include "lane_offsets.cu"
