/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^26"]
# global_atomic.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_global"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of global_atomic.cu, unchanged; only the input differs.
#include "global_atomic.cu"
