/*+++
problem = "elementwise"
sizes = ["2^24", "2^26"]
# One compilation per value of STRIDE (-DSTRIDE=1, -DSTRIDE=2, ...), each
# measured at every size: neighbouring threads copy elements STRIDE apart.
[sweep]
STRIDE = [1, 2, 4, 8, 16, 32]

# Threads cover ceil(n / STRIDE) * STRIDE positions, 256 per block.
[[launch]]
kernel = "strided_copy"
grid = "ceil_div(ceil_div(n, STRIDE) * STRIDE, 256)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

// ANCHOR: kernel
// y[i] = x[i] for every i, in the order of a STRIDE-column matrix read
// down its columns: thread t copies element (t % rows) * STRIDE + t / rows,
// so the 32 threads of a warp touch elements STRIDE floats apart.
extern "C" __global__ void strided_copy(const float* x, float* y, unsigned int n) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int rows = (n + STRIDE - 1) / STRIDE;
    if (t < rows * STRIDE) {
        unsigned int i = (t % rows) * STRIDE + t / rows;
        if (i < n) {
            y[i] = x[i];
        }
    }
}
// ANCHOR_END: kernel
