/*+++
problem = "sum_f32"
sizes = ["2^22"]
# One thread reads every element: tens of milliseconds per run, so each
# measuring process gets the full time limit.
timeout_s = 120
[[launch]]
kernel = "sum_one_thread"
grid = 1
block = 1
args = ["input", "out", "n"]
+++*/

// A single thread keeps the total in a register and writes it once. With
// one writer nothing can come between a load and a store of the total, so
// the answer is right; but every addition waits for the one before it, and
// every other thread the GPU could run stays idle.
extern "C" __global__ void sum_one_thread(const float* x, float* out, unsigned int n) {
    float total = 0.0f;
    for (unsigned int i = 0; i < n; ++i) {
        total += x[i];
    }
    *out = total;
}
