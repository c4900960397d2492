/*+++
problem = "transfer"
sizes = ["4KiB", "1MiB", "64MiB", "1GiB"]
# One copy, host to device, of page-locked host memory (cuMemHostAlloc).
[transfer]
direction = "h2d"
host = "pinned"
+++*/
// No kernel: the driver makes the copy.
