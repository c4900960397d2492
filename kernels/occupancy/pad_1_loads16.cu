/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
# pad_1.cu's launch (120 KiB pad, 1 block, 4 warps per SM) with 16 float4
# loads in flight per thread: 4 warps x 32 threads x 16 x 16 bytes = 32 KiB
# per SM, as many bytes in flight as full.cu's 64 warps with one load each.
[[launch]]
kernel = "copy_occ"
grid = "sms * 16"
block = 128
shared = 122880
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define LOADS 16
#include "copy.cuh"
