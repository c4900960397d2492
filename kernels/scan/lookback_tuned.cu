/*+++
problem = "scan_f32"
sizes = ["2^24", "2^26", "2^28", "2^30"]
# Two launches timed as one unit, as CUB's DeviceScan makes two: launch 0
# sets every tile's status word and the tile counter to 0 (one thread per
# tile), launch 1 is the single-pass scan, one block of 256 threads per
# tile of 256 * 4 * ITEMS elements. The scratch is kept between runs:
# launch 0 resets it.
[sweep]
ITEMS = [2, 4, 6, 8]
[scratch]
counter = { len = 1, elem = "u32", init = "kept" }
status = { len = "2 * grid1", elem = "u32", init = "kept" }
[[launch]]
kernel = "clear_status"
grid = "ceil_div(ceil_div(n, 1024 * ITEMS), 256)"
block = 256
args = ["status", "counter", "n"]
[[launch]]
kernel = "scan_lookback_vec"
grid = "ceil_div(n, 1024 * ITEMS)"
block = 256
args = ["x", "y", "n", "counter", "status"]
+++*/

#define THREADS 256
#include "lookback_vec.cuh"
