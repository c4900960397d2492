/*+++
problem = "elementwise"
sizes = ["2^20"]
# Wrong on purpose: the float4 kernel without its tail. Every timed size is
# a multiple of 4 and passes; the edge sizes 1 and 1000003 do not.
expect = "wrong"
[[launch]]
kernel = "add_float4_no_tail"
grid = "ceil_div(n, 1024)"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

// ANCHOR: kernel
extern "C" __global__ void add_float4_no_tail(const float* x, const float* y, float* z,
                                              unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 a = reinterpret_cast<const float4*>(x)[i];
        float4 b = reinterpret_cast<const float4*>(y)[i];
        reinterpret_cast<float4*>(z)[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    // Missing: the last n % 4 elements are never written.
}
// ANCHOR_END: kernel
