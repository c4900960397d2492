/*+++
problem = "elementwise"
sizes = ["2^24"]
# The copy of copy.cu in another order: neighbouring threads copy elements
# 16 floats apart. Threads cover ceil(n / 16) * 16 positions, 256 per block.
[[launch]]
kernel = "strided_copy"
grid = "ceil_div(ceil_div(n, 16) * 16, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define STRIDE 16
#include "strided.cuh"
