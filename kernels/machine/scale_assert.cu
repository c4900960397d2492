/*+++
problem = "elementwise"
sizes = ["2^24"]
# Faults on purpose: the first kernel with its guard replaced by an assert.
# At 2^24 every thread has an element; at the edge size n = 1 the one block
# of 256 threads has 255 threads past the end, and the assert stops the
# kernel there.
expect = "fault"
[[launch]]
kernel = "scale_assert"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "a", "n"]

[elementwise]
inputs = ["x"]
scalars = { a = 2.0 }
output = "y"
reference = "a * x"
+++*/

// ANCHOR: kernel
extern "C" __global__ void scale_assert(const float* x, float* y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // The author believes every thread has an element: say so, and let the
    // device check it.
    assert(i < n);
    y[i] = a * x[i];
}
// ANCHOR_END: kernel
