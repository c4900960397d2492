/*+++
problem = "elementwise"
sizes = ["2^16", "2^20", "2^24", "2^26"]
# A fixed grid: 8 blocks of 256 threads per SM, the 2048 threads an SM of
# the H200 can hold at once, whatever n is.
[[launch]]
kernel = "add_grid_stride"
grid = "sms * 8"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

// ANCHOR: kernel
extern "C" __global__ void add_grid_stride(const float* x, const float* y, float* z,
                                           unsigned int n) {
    // Each trip of the loop, the whole grid covers one contiguous stretch
    // of gridDim.x * blockDim.x elements, so neighbouring threads still
    // touch neighbouring addresses.
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        z[i] = x[i] + y[i];
    }
}
// ANCHOR_END: kernel
