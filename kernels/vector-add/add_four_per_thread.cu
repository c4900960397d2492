/*+++
problem = "elementwise"
sizes = ["2^16", "2^20", "2^24", "2^26"]
# The grid of vector-add/add_float4: four elements per thread, 256 threads
# per block, but four separate 4-byte accesses per array instead of one
# 16-byte access.
[[launch]]
kernel = "add_four_per_thread"
grid = "ceil_div(n, 1024)"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

// ANCHOR: kernel
extern "C" __global__ void add_four_per_thread(const float* x, const float* y, float* z,
                                               unsigned int n) {
    // A block covers 1024 consecutive elements; on each of the four steps
    // its 256 threads take 256 consecutive ones, so every warp access is
    // still one contiguous 128-byte stretch.
    unsigned int base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    float a[4], b[4];
    // All eight loads first, then the four stores: without this order the
    // compiler must assume a store to z may change x or y, and would wait
    // for each store before the next loads.
    for (int k = 0; k < 4; ++k) {
        unsigned int i = base + k * blockDim.x;
        if (i < n) {
            a[k] = x[i];
            b[k] = y[i];
        }
    }
    for (int k = 0; k < 4; ++k) {
        unsigned int i = base + k * blockDim.x;
        if (i < n) {
            z[i] = a[k] + b[k];
        }
    }
}
// ANCHOR_END: kernel
