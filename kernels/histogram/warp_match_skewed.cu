/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# warp_match.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_warp_match"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of warp_match.cu, unchanged; only the input differs.
#include "warp_match.cu"
