/*+++
problem = "transfer"
sizes = ["4KiB", "1MiB", "64MiB", "1GiB"]
# One copy, host to device, of ordinary pageable host memory.
[transfer]
direction = "h2d"
host = "pageable"
+++*/
// No kernel: the driver makes the copy.
