/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# packed.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_packed"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of packed.cu, unchanged; only the input differs.
#include "packed.cu"
