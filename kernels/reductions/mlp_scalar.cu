/*+++
problem = "sum_f32"
sizes = ["2^24", "2^28"]
# rung_scalar.cu's launch (at most two 1024-thread blocks per SM, rounded
# down to a power of two) and its 4-byte loads, with IN_FLIGHT independent
# loads per thread per trip of the loop. One compilation per value.
[sweep]
IN_FLIGHT = [1, 2, 4, 8, 16]
[[launch]]
kernel = "mlp_scalar"
grid = "min(ceil_div(n, 4096), pow2_floor(sms * 2))"
block = 1024
args = ["input", "out", "n"]
+++*/

#include "block_sum.cuh"

// Memory-level parallelism alone: each thread reads elements a grid
// apart, 4 bytes at a time, as rung_scalar does, but issues IN_FLIGHT
// loads before it adds any of them. The loop is kept rolled
// (`#pragma unroll 1`), so the compiler does not put more loads in flight
// than IN_FLIGHT. __launch_bounds__(1024, 2) holds every value to 32
// registers per thread, so that each value runs two blocks per SM: the
// values differ in the loads each thread has waiting, not in the threads
// an SM holds.
extern "C" __global__ void __launch_bounds__(1024, 2) mlp_scalar(const float* __restrict__ x,
                                                                  float* __restrict__ out,
                                                                  unsigned int n) {
    // ANCHOR: loop
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    // n is at most 2^31 and stride * IN_FLIGHT far below 2^31, so neither
    // the test nor the step can wrap.
#pragma unroll 1
    for (; i + (IN_FLIGHT - 1) * stride < n; i += IN_FLIGHT * stride) {
        float v[IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; ++k) {
            v[k] = x[i + k * stride];
        }
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; ++k) {
            sum += v[k];
        }
    }
    // The fewer than IN_FLIGHT elements left to this thread, one at a time.
#pragma unroll 1
    for (; i < n; i += stride) {
        sum += x[i];
    }
    // ANCHOR_END: loop
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        atomicAdd(out, total);
    }
}
