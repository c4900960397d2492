/*+++
problem = "elementwise"
sizes = ["2^24"]
# The copy of copy.cu in another order: neighbouring threads copy elements
# 4 floats apart. Threads cover ceil(n / 4) * 4 positions, 256 per block.
[[launch]]
kernel = "strided_copy"
grid = "ceil_div(ceil_div(n, 4) * 4, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define STRIDE 4
#include "strided.cuh"
