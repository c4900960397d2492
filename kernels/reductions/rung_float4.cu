/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24", "2^28"]
# The launch of fast_reduce.cu: at most two 1024-thread blocks per SM,
# rounded down to a power of two.
[[launch]]
kernel = "rung_float4"
grid = "min(ceil_div(n, 4096), pow2_floor(sms * 2))"
block = 1024
args = ["input", "out", "n"]
+++*/

#include "block_sum.cuh"

// The second rung: rung_scalar with 16-byte loads, one float4 per thread
// per trip, then the n % 4 last elements one per thread.
extern "C" __global__ void rung_float4(const float* __restrict__ x, float* __restrict__ out,
                                       unsigned int n) {
    // ANCHOR: loop
    const float4* x4 = reinterpret_cast<const float4*>(x);
    unsigned int n4 = n / 4;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (unsigned int i = first; i < n4; i += stride) {
        float4 v = x4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (first < n - 4 * n4) {
        sum += x[4 * n4 + first];
    }
    // ANCHOR_END: loop
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        atomicAdd(out, total);
    }
}
