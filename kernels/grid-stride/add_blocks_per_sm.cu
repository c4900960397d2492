/*+++
problem = "elementwise"
sizes = ["2^24", "2^26"]
# A grid-stride loop over a grid of BLOCKS blocks of 256 threads per SM. An
# SM of the H200 holds at most 2048 threads, eight such blocks: BLOCKS = 8 is
# one full wave of blocks, 16 two, and 9 or 17 leave one block per SM for
# a last wave of its own.
[sweep]
BLOCKS = [1, 2, 4, 8, 9, 12, 16, 17, 32, 64]
[[launch]]
kernel = "add_grid_stride"
grid = "sms * BLOCKS"
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
    // One trip covers gridDim.x * blockDim.x consecutive elements, one per
    // thread of the grid, so a warp's 32 accesses stay contiguous.
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        z[i] = x[i] + y[i];
    }
}
// ANCHOR_END: kernel
