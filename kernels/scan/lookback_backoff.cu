/*+++
problem = "scan_f32"
sizes = ["2^24", "2^26", "2^28"]
# lookback_tuned.cu's two launches at 4 float4 a thread (tiles of 4096),
# with the look-back sleeping NAP_NS nanoseconds before it reads a window
# again that was not ready.
[sweep]
NAP_NS = [64, 256, 1024]
[scratch]
counter = { len = 1, elem = "u32", init = "kept" }
status = { len = "2 * grid1", elem = "u32", init = "kept" }
[[launch]]
kernel = "clear_status"
grid = "ceil_div(ceil_div(n, 4096), 256)"
block = 256
args = ["status", "counter", "n"]
[[launch]]
kernel = "scan_lookback_vec"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n", "counter", "status"]
+++*/

#define THREADS 256
#define ITEMS 4
#include "lookback_vec.cuh"
