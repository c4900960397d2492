/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
# pad_2.cu's launch (100 KiB pad, at most 2 blocks, 8 warps per SM) with 8
# float4 loads in flight per thread instead of one: 8 warps x 32 threads x 8
# x 16 bytes = 32 KiB per SM, as many bytes in flight as full.cu's 64 warps
# with one load each.
[[launch]]
kernel = "copy_occ"
grid = "sms * 16"
block = 128
shared = 102400
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define LOADS 8
#include "copy.cuh"
