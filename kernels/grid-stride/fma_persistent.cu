/*+++
problem = "fma_f32"
# fma_tiles.cu's sizes: 1 wave, 1 wave and one block, 1.5 waves, 2 waves,
# 2 waves and one block (a wave: 2162688 elements).
sizes = [2162688, 2164736, 3244032, 4325376, 4327424]
# Persistent blocks: one wave of blocks, eight per SM, each looping over
# tiles of 2048 elements, a grid-stride loop whose unit is a tile.
[[launch]]
kernel = "fma_persistent"
grid = "sms * 8"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "chain.cuh"

// ANCHOR: kernel
extern "C" __global__ void fma_persistent(const float* x, float* y, float a, float b,
                                          unsigned int steps, unsigned int n) {
    unsigned int tiles = (n + TILE - 1) / TILE;
#pragma unroll 1
    for (unsigned int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        run_tile(x, y, a, b, steps, n, tile);
    }
}
// ANCHOR_END: kernel
