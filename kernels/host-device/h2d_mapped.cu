/*+++
problem = "transfer"
sizes = ["4KiB", "1MiB", "64MiB", "1GiB"]
# No copy is queued: the runner's copy kernel (one float4 per thread, 256
# threads a block) moves the bytes host to device, reaching the
# mapped host memory through its device pointer, across the link.
[transfer]
direction = "h2d"
host = "mapped"
+++*/
// No kernel of this file: the runner's own copy kernel makes the copy.
