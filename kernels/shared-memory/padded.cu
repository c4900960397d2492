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
// stride_32.cu with a padding word after every 32: lane k keeps its value at
// word 33·k, which is in bank k.
#define SLOT(lane) ((lane) * 33)
// ANCHOR_END: slot
#include "rotate.cuh"
