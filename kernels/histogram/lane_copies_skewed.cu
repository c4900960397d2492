/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# lane_copies.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_lane_copies"
grid = "min(ceil_div(n, 4096), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of lane_copies.cu, unchanged; only the input differs.
#include "lane_copies.cu"
