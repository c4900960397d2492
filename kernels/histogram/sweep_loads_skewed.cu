/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# sweep_loads.cu's kernel and launch, on the skewed input.
[sweep]
LOADS = [1, 2, 4]
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 4096 * LOADS), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of sweep_loads.cu, unchanged; only the input differs.
#include "sweep_loads.cu"
