/*+++
problem = "transfer"
sizes = ["64KiB", "1MiB", "16MiB", "256MiB"]
[transfer]
direction = "h2d"
host = "pinned"
+++*/
// No kernel: the runner times one cuMemcpyHtoDAsync of the size's bytes
// from page-locked host memory into device memory, with the same event
// timer the kernels use, and checks the copy byte for byte.
