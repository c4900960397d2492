/*+++
problem = "softmax_rows"
dtype = "f32"
rows = "67108864 / n"
sizes = ["2^10", "2^14", "2^18"]
# One block per row, one float4 per thread per trip, at most 1024 threads.
[[launch]]
kernel = "softmax_online_block"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 128))"
args = ["x", "y", "rows", "cols"]
+++*/

// Online softmax (Milakov and Gimelshein, 2018): the max and the sum of
// exponentials are found in the same sweep, so x is read twice, not three
// times.

#include "rows_softmax.cuh"

extern "C" __global__ void __launch_bounds__(1024) softmax_online_block(const float* __restrict__ x,
                                                                        float* __restrict__ y,
                                                                        unsigned int rows,
                                                                        unsigned int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4;
    // other widths take the scalar loops.
    bool vec = cols % 4 == 0;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    float4* y4 = reinterpret_cast<float4*>(yr);

    // ANCHOR: sweep
    MaxSum s = {LOWEST, 0.0f};
    if (vec) {
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            s = add4(s, x4[i]);
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            s = merge(s, {xr[j], 1.0f});
        }
    }
    s = block_merge(s);
    // ANCHOR_END: sweep

    // Second read of x: the row's (max, sum) is known, so each element is
    // final as soon as it is read.
    float inv_d = 1.0f / s.d;
    if (vec) {
        for (unsigned int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i];
            y4[i] = make_float4(expf(v.x - s.m) * inv_d, expf(v.y - s.m) * inv_d,
                                expf(v.z - s.m) * inv_d, expf(v.w - s.m) * inv_d);
        }
    } else {
        for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) {
            yr[j] = expf(xr[j] - s.m) * inv_d;
        }
    }
}
