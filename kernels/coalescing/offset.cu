/*+++
problem = "elementwise"
sizes = ["2^24"]
# One thread per element, 256 per block: y[i] = x[i + 1], 0 past the end.
# The reads of a warp start one float past a 128-byte boundary; the writes
# are aligned, as copy.cu's are.
[[launch]]
kernel = "offset_copy"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x[i + 1]"
boundary = "zero"
+++*/

// ANCHOR: kernel
// copy.cu with the read moved one float on: lane k of a warp whose first
// element is i0 (a multiple of 32) reads x[i0 + k + 1], so the warp's 128
// bytes start 4 bytes into a 32-byte sector and end 4 bytes into the
// sector after its last.
extern "C" __global__ void offset_copy(const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // i + 1 <= n fits in 32 bits, since i < n <= 2^32 - 1.
        y[i] = i + 1 < n ? x[i + 1] : 0.0f;
    }
}
// ANCHOR_END: kernel
