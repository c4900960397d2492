/*+++
problem = "sum_f32"
sizes = ["2^20", "2^22", "2^24", "2^26"]
# At 2^26 the float32 total stalls at 2^24 = 16,777,216 and the check fails:
# the page shows that failure on purpose.
expect = "wrong"
# One contended atomic per element is slow: about a tenth of a second per run
# at 2^26, and the runner takes many samples.
timeout_s = 120
[[launch]]
kernel = "reduce_atomic_per_element"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "out", "n"]
+++*/

// Every thread adds its element straight into the one global total. The
// answer is right until the total outgrows float32 (see the chapter), but all
// n additions queue on the same four bytes, so they execute one at a time.
// ANCHOR: kernel
extern "C" __global__ void reduce_atomic_per_element(const float* x, float* out,
                                                     unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(out, x[i]);
    }
}
// ANCHOR_END: kernel
