/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# sweep_copies.cu's kernel and launch, on the skewed input.
[sweep]
COPIES = [1, 2, 4, 8, 16, 32]
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096), sms * min(8, 228 / (COPIES + 1)))"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of sweep_copies.cu, unchanged; only the input differs.
#include "sweep_copies.cu"
