/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# tuned.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 8192), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of tuned.cu, unchanged; only the input differs.
#include "tuned.cu"
