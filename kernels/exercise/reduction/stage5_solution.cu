/*+++
problem = "sum_f32"
sizes = ["2^22"]
# The shared buffer keeps its 1024 bytes; one float per warp (32 bytes
# for 256 threads) is all this kernel uses.
[[launch]]
kernel = "sum_warp_shuffle"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// ANCHOR: warp_total
// After the loop, lane 0 holds the sum of v over the warp's 32 lanes. Each
// step adds the value of the lane `offset` higher, read straight from its
// register: no shared memory, no barrier.
__device__ float warp_total(float v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}
// ANCHOR_END: warp_total

// Each warp folds its 32 values in registers, its lane 0 parks the warp's
// total in shared memory, and the first warp folds those. One barrier in
// all. blockDim.x must be a multiple of 32.
extern "C" __global__ void sum_warp_shuffle(const float* x, float* out, unsigned int n) {
    extern __shared__ float warp_sums[];
    unsigned int t = threadIdx.x;
    unsigned int lane = t % 32;
    unsigned int warp = t / 32;
    unsigned int i = blockIdx.x * blockDim.x + t;

    // ANCHOR: fold
    // Every lane takes part in the shuffles, in range or not, so the full
    // mask is right.
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
            atomicAdd(out, v);
        }
    }
    // ANCHOR_END: fold
}
