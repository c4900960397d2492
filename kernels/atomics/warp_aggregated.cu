/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24"]
# One thread per element in blocks of 256, as reductions/atomic_per_element;
# each warp first adds its 32 elements with shuffles, then its lane 0 makes
# the one atomicAdd: n / 32 updates of the one address instead of n.
[[launch]]
kernel = "sum_warp_aggregated"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "out", "n"]
+++*/

// ANCHOR: kernel
extern "C" __global__ void sum_warp_aggregated(const float* __restrict__ x, float* __restrict__ out,
                                               unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Every lane takes part in the shuffles, those past the end with 0.
    float v = i < n ? x[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, v);
    }
}
// ANCHOR_END: kernel
