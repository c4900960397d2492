/*+++
problem = "scan_f32"
sizes = ["2^20"]
expect = "wrong"
[[launch]]
kernel = "scan_of_zeros"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "n"]
+++*/
// Planted: overwrites its input with zeros and writes the scan of what is
// left, zeros. Judged against the input it was given, every prefix sum is
// wrong; a check that read the input back from the GPU would find the
// answer right. The runner's prefix-sum check on the GPU runs only while
// the input still has its uploaded bytes, so this one is judged on the
// host, against the drawn data.
extern "C" __global__ void scan_of_zeros(float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = 0.0f;
        y[i] = 0.0f;
    }
}
