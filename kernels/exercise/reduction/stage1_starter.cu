/*+++
problem = "sum_f32"
sizes = ["2^22"]
# The first thing most people write, and it is wrong: the page shows the
# failure on purpose.
expect = "wrong"
[[launch]]
kernel = "sum_plain_add"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// One thread per element, each adding its element to the total with `+=`.
// `*out += v` is three steps: load the total, add, store it back. Between
// one thread's load and its store, thousands of other threads load the
// same old total, and each store overwrites the ones before it, so most
// additions are lost.
extern "C" __global__ void sum_plain_add(const float* x, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        *out += x[i];
    }
}
