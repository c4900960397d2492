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
// The 32 x 32 words of stride_32.cu, no padding: lane k keeps its value in
// row k, at column 7 XOR k, so word 32·k + (7 ^ k), which is in bank 7 ^ k:
// 32 distinct banks, since XOR with k is one to one.
#define SLOT(lane) ((lane) * 32 + (7u ^ (lane)))
// ANCHOR_END: slot
#include "rotate.cuh"
