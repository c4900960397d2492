/*+++
problem = "elementwise"
sizes = ["2^24"]
# The copy of copy.cu in another order: neighbouring threads copy elements
# 32 floats apart. Threads cover ceil(n / 32) * 32 positions, 256 per block.
[[launch]]
kernel = "strided_copy"
grid = "ceil_div(ceil_div(n, 32) * 32, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define STRIDE 32
#include "strided.cuh"
