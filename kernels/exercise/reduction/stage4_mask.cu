/*+++
problem = "sum_f32"
sizes = ["2^22"]
[[launch]]
kernel = "sum_block_fold_mask"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// A control for stage 4: stage3_solution.cu with the same pairing, the
// same scattered threads at work in every warp, and only the test changed.
// For a power of two 2s, t % (2s) == 0 is the same as (t & (2s - 1)) == 0,
// but the compiler does not know that s is a power of two, so `%` becomes a
// full unsigned remainder.
extern "C" __global__ void sum_block_fold_mask(const float* x, float* out, unsigned int n) {
    extern __shared__ float partial[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;

    partial[t] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if ((t & (2 * s - 1)) == 0) {
            partial[t] += partial[t + s];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (t == 0) {
        atomicAdd(out, partial[0]);
    }
}
