/*+++
problem = "elementwise"
sizes = ["2^20", "2^22"]
[[launch]]
kernel = "rotate"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "n"]
[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/
// ANCHOR: slot
// padded.cu's layout, and a second load each round in which all 32 lanes
// read the same word, word 0.
#define SLOT(lane) ((lane) * 33)
#define EXTRA(lane) 0u
// ANCHOR_END: slot
#include "rotate.cuh"
