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
// Lane k keeps its value at word 8·k of its warp's region: bank (8·k) mod 32.
#define SLOT(lane) ((lane) * 8)
// ANCHOR_END: slot
#include "rotate.cuh"
