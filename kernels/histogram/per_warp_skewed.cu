/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# per_warp.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_per_warp"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of per_warp.cu, unchanged; only the input differs.
#include "per_warp.cu"
