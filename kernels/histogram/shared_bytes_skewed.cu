/*+++
problem = "histogram_u8_skewed"
sizes = ["2^20", "2^24", "2^28"]
# shared_bytes.cu's kernel and launch, on the skewed input.
[[launch]]
kernel = "hist_shared_bytes"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "bins", "n"]
+++*/

// The kernel of shared_bytes.cu, unchanged; only the input differs.
#include "shared_bytes.cu"
