/*+++
problem = "elementwise"
sizes = ["2^20"]
expect = "wrong"
[[launch]]
kernel = "scale_skips_last"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "out", "a", "n"]
[elementwise]
inputs = ["x"]
scalars = { a = 2.0 }
output = "out"
reference = "a * x"
+++*/

// Skips the last element: the poisoned output must fail the check.
extern "C" __global__ void scale_skips_last(const float* x, float* out, float a, unsigned int n) {
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i + 1 < n;
         i += gridDim.x * blockDim.x) {
        out[i] = a * x[i];
    }
}
