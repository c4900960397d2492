/*+++
problem = "elementwise"
sizes = ["2^16", "2^20", "2^24", "2^26"]
# One float4 (four elements) per thread: a quarter of the threads of
# vector-add/add, 256 per block. Thread n / 4 takes the ragged tail.
[[launch]]
kernel = "add_float4"
grid = "ceil_div(n, 1024)"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

// ANCHOR: kernel
extern "C" __global__ void add_float4(const float* x, const float* y, float* z, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int n4 = n / 4;
    if (i < n4) {
        // Each buffer is its own CUDA allocation, aligned for any type, so
        // element 4 * i is 16-byte aligned and can be read as one float4.
        float4 a = reinterpret_cast<const float4*>(x)[i];
        float4 b = reinterpret_cast<const float4*>(y)[i];
        reinterpret_cast<float4*>(z)[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    } else if (i == n4) {
        // The last n % 4 elements (none when n is a multiple of 4).
        for (unsigned int j = 4 * n4; j < n; ++j) {
            z[j] = x[j] + y[j];
        }
    }
}
// ANCHOR_END: kernel
