/*+++
problem = "sum_f32"
sizes = ["2^22"]
[[launch]]
kernel = "sum_block_halves"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// stage3_solution.cu with the other way of pairing slots: each round adds
// the upper half of the live slots onto the lower half, so the threads at
// work are always 0 .. half-1. blockDim.x must be a power of two.
extern "C" __global__ void sum_block_halves(const float* x, float* out, unsigned int n) {
    extern __shared__ float partial[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;

    partial[t] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    // 128 live threads, then 64, ..., then 1. While half is 32 or more,
    // every warp is either all at work or all idle; and the test is a
    // comparison, not a remainder.
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) {
            partial[t] += partial[t + half];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (t == 0) {
        atomicAdd(out, partial[0]);
    }
}
