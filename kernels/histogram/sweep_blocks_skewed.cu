/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# sweep_blocks.cu's kernel and launch, on the skewed input.
[sweep]
BPS = [2, 3, 4, 5, 6]
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096), sms * BPS)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of sweep_blocks.cu, unchanged; only the input differs.
#include "sweep_blocks.cu"
