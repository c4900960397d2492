/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
# copy.cuh with one float4 in flight per thread, blocks of 128 threads (four
# warps), 16 blocks per SM in the grid: 2048 threads, as many as an SM
# holds, and no shared memory, so nothing but the threads limits the SM to
# 16 blocks, 64 warps.
[[launch]]
kernel = "copy_occ"
grid = "sms * 16"
block = 128
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#include "copy.cuh"
