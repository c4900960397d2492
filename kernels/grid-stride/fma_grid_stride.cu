/*+++
problem = "fma_f32"
# fma_tiles.cu's sizes: 1 wave, 1 wave and one block, 1.5 waves, 2 waves,
# 2 waves and one block (a wave: 2162688 elements).
sizes = [2162688, 2164736, 3244032, 4325376, 4327424]
# One wave of blocks, eight of 256 per SM, and a grid-stride loop whose
# unit is one element: the grid covers n in trips of 270,336 elements.
[[launch]]
kernel = "fma_grid_stride"
grid = "sms * 8"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "chain.cuh"

// ANCHOR: kernel
extern "C" __global__ void fma_grid_stride(const float* x, float* y, float a, float b,
                                           unsigned int steps, unsigned int n) {
    unsigned int stride = gridDim.x * blockDim.x;
#pragma unroll 1
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = chain(x[i], a, b, steps);
    }
}
// ANCHOR_END: kernel
