/*+++
problem = "sum_f32"
sizes = ["2^22"]
[[launch]]
kernel = "sum_block_fold_missing_sync"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// stage3_solution without the barrier after the store: a pitfall kernel.
// Only the first round runs without a barrier before it, and in it each
// working thread (an even t) reads slot t + 1, which a thread of its own
// warp wrote, so on the GPU the answer usually comes out right; yet no rule
// of CUDA says the partner's store is visible: compute-sanitizer's
// racecheck reports the hazard even on a run whose answer was right.
extern "C" __global__ void sum_block_fold_missing_sync(const float* x, float* out, unsigned int n) {
    extern __shared__ float partial[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;

    // ANCHOR: store
    // Every thread fills its slot. A thread past the end of the input
    // writes 0, which adds nothing, and stays: it still has barriers to
    // reach.
    partial[t] = i < n ? x[i] : 0.0f;
    // (the __syncthreads() that belongs here is missing)
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
