/*+++
problem = "transfer"
sizes = ["4KiB", "1MiB", "64MiB", "1GiB"]
# One copy, device to host, of ordinary pageable host memory.
[transfer]
direction = "d2h"
host = "pageable"
+++*/
// No kernel: the driver makes the copy.
