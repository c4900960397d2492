/*+++
problem = "sum_f32"
sizes = ["2^22"]
[[launch]]
kernel = "sum_atomic_each"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// One thread per element again, but the read-modify-write of the total is
// one indivisible atomicAdd, done where the total lives (the L2 cache), so
// no update is lost. All of them target the same four bytes, and the
// hardware applies them one after another.
extern "C" __global__ void sum_atomic_each(const float* x, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(out, x[i]);
    }
}
