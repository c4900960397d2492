/*+++
problem = "elementwise"
sizes = ["2^20", "2^24"]
[[launch]]
kernel = "saxpy"
grid = "min(ceil_div(n, 256), sms * 8)"
block = 256
args = ["x", "y", "a", "n"]
[elementwise]
inputs = ["x", "y"]
scalars = { a = 2.5 }
output = "y"
reference = "a * x + y"
+++*/

// y = a x + y in place: a probe of the runner's in-place restore on the
// GPU (each run must see the drawn y, not the last run's).
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned int n) {
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
