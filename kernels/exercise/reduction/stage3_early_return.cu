/*+++
problem = "sum_f32"
sizes = ["2^22"]
# Right whenever n is a multiple of 256, as 2^22 is; wrong at the edge
# sizes, where the last block reads slots nobody wrote. The page shows the
# failure on purpose.
expect = "wrong"
[[launch]]
kernel = "sum_block_fold_early_return"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// stage3_solution.cu with the guard of stage 2 copied over: threads past
// the end return before they write their slot. The fold still reads every
// slot, so the last block adds whatever its unwritten slots held.
extern "C" __global__ void sum_block_fold_early_return(const float* x, float* out,
                                                       unsigned int n) {
    extern __shared__ float partial[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;

    // ANCHOR: bug
    if (i >= n) {
        return;
    }
    partial[t] = x[i];
    __syncthreads();
    // ANCHOR_END: bug

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0) {
            partial[t] += partial[t + s];
        }
        __syncthreads();
    }

    if (t == 0) {
        atomicAdd(out, partial[0]);
    }
}
