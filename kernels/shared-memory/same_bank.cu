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
// broadcast.cu with the second load moved: lane k reads word 32·k, so the
// 32 lanes read 32 different words, all of them in bank 0.
#define SLOT(lane) ((lane) * 33)
#define EXTRA(lane) ((lane) * 32)
// ANCHOR_END: slot
#include "rotate.cuh"
