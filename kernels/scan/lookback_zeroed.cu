/*+++
problem = "scan_f32"
sizes = ["2^24", "2^26", "2^28", "2^30"]
# One pass, one block of 256 threads per tile of 4096 elements (4 float4
# a thread), the tile of lookback_warp.cu read as float4. `counter` and
# `status` (one 64-bit word per tile) are set to 0 by the runner before
# every run, outside the timed region.
[scratch]
counter = { len = 1, elem = "u32", init = "zeroed" }
status = { len = "2 * grid0", elem = "u32", init = "zeroed" }
[[launch]]
kernel = "scan_lookback_vec"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n", "counter", "status"]
+++*/

#define THREADS 256
#define ITEMS 4
#include "lookback_vec.cuh"
