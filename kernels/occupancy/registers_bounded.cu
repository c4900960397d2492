/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
# registers.cu with __launch_bounds__(128, 16): blocks of at most 128
# threads, at least 16 of them per SM, which leaves the compiler 65536 / (16
# x 128) = 32 registers a thread; what does not fit is spilled to local
# memory.
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

#define HOLD 88
#define BOUNDS __launch_bounds__(128, 16)
#include "copy.cuh"
