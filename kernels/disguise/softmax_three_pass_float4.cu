/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^10", "2^14", "2^18"]
# One block per row, one float4 per thread per trip, at most 1024 threads:
# the launch of softmax_three_pass and softmax_online_block.
[[launch]]
kernel = "softmax_three_pass_float4"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 128))"
args = ["x", "y", "rows", "cols"]
+++*/

// The three sweeps of softmax_three_pass with the loads of
// softmax_online_block: four floats at a time. It reads x three times, as
// softmax_three_pass does, and as wide as the online kernel does, so
// against the one it changes only the width and against the other only the
// number of passes.

// The block-wide max, returned to every thread, as in softmax_three_pass.
__device__ float block_max(float v) {
    __shared__ float warp_max[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    if (lane == 0) {
        warp_max[warp] = v;
    }
    __syncthreads();
    v = lane < blockDim.x / 32 ? warp_max[lane] : warp_max[0];
    for (int offset = 16; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    return v;
}

#include "rows_softmax.cuh"

// ANCHOR: three_pass_float4
extern "C" __global__ void __launch_bounds__(1024)
    softmax_three_pass_float4(const float* __restrict__ x, float* __restrict__ y,
                              unsigned int rows, unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4;
    // other widths take the scalar loops of softmax_three_pass.
    bool vec = cols % 4 == 0;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    float4* y4 = reinterpret_cast<float4*>(yr);

    // Pass 1: the row's max.
    float m = LOWEST;
    if (vec) {
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i];
            m = fmaxf(fmaxf(m, fmaxf(v.x, v.y)), fmaxf(v.z, v.w));
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            m = fmaxf(m, xr[j]);
        }
    }
    m = block_max(m);

    // Pass 2: the denominator, x read again.
    float d = 0.0f;
    if (vec) {
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i];
            d += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            d += expf(xr[j] - m);
        }
    }
    d = block_sum(d);

    // Pass 3: x read a third time, y written.
    float inv_d = 1.0f / d;
    if (vec) {
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i];
            y4[i] = make_float4(expf(v.x - m) * inv_d, expf(v.y - m) * inv_d,
                                expf(v.z - m) * inv_d, expf(v.w - m) * inv_d);
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            yr[j] = expf(xr[j] - m) * inv_d;
        }
    }
}
// ANCHOR_END: three_pass_float4
