/*+++
problem = "scan_f32"
sizes = ["2^24", "2^26", "2^28"]
# lookback_tuned.cu's two launches with 6 float4 a thread and THREADS
# threads a block: tiles of THREADS * 24 elements (128 threads of 24 floats
# is the tile CUB's scan of floats is tuned to on sm_90).
[sweep]
THREADS = [128, 512]
[scratch]
counter = { len = 1, elem = "u32", init = "kept" }
status = { len = "2 * grid1", elem = "u32", init = "kept" }
[[launch]]
kernel = "clear_status"
grid = "ceil_div(ceil_div(n, THREADS * 24), 256)"
block = 256
args = ["status", "counter", "n"]
[[launch]]
kernel = "scan_lookback_vec"
grid = "ceil_div(n, THREADS * 24)"
block = "THREADS"
args = ["x", "y", "n", "counter", "status"]
+++*/

#define ITEMS 6
#include "lookback_vec.cuh"
