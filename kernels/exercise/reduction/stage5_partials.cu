/*+++
problem = "sum_f32"
sizes = ["2^22"]
# stage5_solution.cu's launch and fold, with each block writing its total
# to its own slot of a scratch array instead of adding it to `out`. A
# second launch (partials_sum.cuh, as the fold kernels of the reductions
# chapter use) sums the 16,384 partials at 2^22 with 64 blocks, so 64
# atomics on `out` instead of 16,384. Both launches are timed together.
[scratch]
partials = "grid0"
[[launch]]
kernel = "sum_warp_shuffle_partials"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "partials", "n"]
[[launch]]
kernel = "sum_partials"
grid = "min(ceil_div(grid0, 256), sms * 4)"
block = 256
args = ["partials", "out", "grid0"]
+++*/

#include "reductions/partials_sum.cuh"

// Lane 0 ends with the sum of v over the warp (stage 5).
__device__ float warp_total(float v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

// A control for stage 6: stage 5's solution, one element per thread and
// one block per 256 elements, with its atomic replaced by a store to the
// block's own slot. What separates it from stage 5 is the queue of
// atomics on `out`; what separates it from stage 6 is the shape of the
// reading (a grid the size of the GPU, a loop, 16-byte loads).
extern "C" __global__ void sum_warp_shuffle_partials(const float* x, float* partials,
                                                     unsigned int n) {
    extern __shared__ float warp_sums[];
    unsigned int t = threadIdx.x;
    unsigned int lane = t % 32;
    unsigned int warp = t / 32;
    unsigned int i = blockIdx.x * blockDim.x + t;

    // ANCHOR: fold
    float v = i < n ? x[i] : 0.0f;
    v = warp_total(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();

    if (warp == 0) {
        unsigned int warps = blockDim.x / 32;
        v = lane < warps ? warp_sums[lane] : 0.0f;
        v = warp_total(v);
        if (lane == 0) {
            partials[blockIdx.x] = v;
        }
    }
    // ANCHOR_END: fold
}
