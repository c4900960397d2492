/*+++
problem = "elementwise"
sizes = ["2^24"]
# The copy of copy.cu in another order: neighbouring threads copy elements
# 8 floats apart. Threads cover ceil(n / 8) * 8 positions, 256 per block.
[[launch]]
kernel = "strided_copy"
grid = "ceil_div(ceil_div(n, 8) * 8, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define STRIDE 8
#include "strided.cuh"
