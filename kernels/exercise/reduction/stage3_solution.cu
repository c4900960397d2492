/*+++
problem = "sum_f32"
sizes = ["2^22"]
[[launch]]
kernel = "sum_block_fold"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// Each block first adds up its own 256 elements in shared memory, then
// makes a single atomicAdd of its total. blockDim.x must be a power of two.
extern "C" __global__ void sum_block_fold(const float* x, float* out, unsigned int n) {
    extern __shared__ float partial[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;

    // ANCHOR: store
    // Every thread fills its slot. A thread past the end of the input
    // writes 0, which adds nothing, and stays: it still has barriers to
    // reach.
    partial[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    // ANCHOR_END: store

    // ANCHOR: fold
    // In the round with step s, each slot whose index is a multiple of 2s
    // takes in the slot s to its right: 128 additions, then 64, ..., then
    // 1, eight rounds for 256 slots. The barrier ends each round before
    // the next reads its results.
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0) {
            partial[t] += partial[t + s];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (t == 0) {
        atomicAdd(out, partial[0]);
    }
}
