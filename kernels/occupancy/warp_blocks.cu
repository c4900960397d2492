/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
# copy.cuh with one float4 in flight per thread in blocks of one warp (32
# threads), 32 blocks per SM in the grid: an SM holds at most 32 blocks, so
# at most 32 warps, half of what its threads, registers and shared memory
# would allow.
[[launch]]
kernel = "copy_occ"
grid = "sms * 32"
block = 32
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#include "copy.cuh"
