/*+++
problem = "fma_f32"
sizes = ["2^22", "2^24"]
# one_path.cu's launch. A short branch inside the loop: each step either
# multiply-adds or subtracts (the same value either way), by
# `(blockIdx.x + s) & 1`: the lanes of a block agree at every step.
[[launch]]
kernel = "short_block"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/

extern "C" __global__ void short_block(const float* x, float* y, float a, float b,
                                    unsigned int steps, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        // ANCHOR: step
        for (unsigned int s = 0; s < steps; ++s) {
            if ((blockIdx.x + s) & 1) {
                v = b - v;
            } else {
                v = fmaf(v, a, b);
            }
        }
        // ANCHOR_END: step
        y[i] = v;
    }
}
