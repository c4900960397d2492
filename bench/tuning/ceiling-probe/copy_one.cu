/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
[[launch]]
kernel = "copy_one"
grid = "ceil_div(n, 1024)"
block = 256
args = ["x", "y", "n"]
[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/
// One float4 per thread, no loop: as many blocks as the data needs.
extern "C" __global__ void copy_one(const float* __restrict__ x, float* __restrict__ y, unsigned int n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < n) {
        reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(x)[i];
    } else {
        for (unsigned long long j = 4 * i; j < n; ++j) y[j] = x[j];
    }
}
