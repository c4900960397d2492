/*+++
problem = "scan_f32"
sizes = ["2^20"]
# One thread walks the whole array: right, and as slow as one thread is.
[[launch]]
kernel = "scan_one_thread"
grid = 1
block = 1
args = ["x", "y", "n"]
+++*/

// The scan as a CPU would run it: one running total, one element after
// another. Every y[i] is right, and one thread of the GPU's many does all
// the work.
extern "C" __global__ void scan_one_thread(const float* __restrict__ x, float* __restrict__ y,
                                           unsigned int n) {
    float total = 0.0f;
    for (unsigned int i = 0; i < n; ++i) {
        total += x[i];
        y[i] = total;
    }
}
