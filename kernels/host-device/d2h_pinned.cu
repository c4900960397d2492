/*+++
problem = "transfer"
sizes = ["4KiB", "1MiB", "64MiB", "1GiB"]
# One copy, device to host, of page-locked host memory (cuMemHostAlloc).
[transfer]
direction = "d2h"
host = "pinned"
+++*/
// No kernel: the driver makes the copy.
