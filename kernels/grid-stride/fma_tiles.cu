/*+++
problem = "fma_f32"
# In units of a wave: 132 SMs x 8 blocks x 2048 elements = 2162688 elements.
# 1 wave, 1 wave and one block, 1.5 waves, 2 waves, 2 waves and one block.
sizes = [2162688, 2164736, 3244032, 4325376, 4327424]
# One tile of 2048 elements per block of 256 threads, as many blocks as
# there are tiles. Eight blocks of 256 fill an SM of the H200.
[[launch]]
kernel = "fma_tiles"
grid = "ceil_div(n, 2048)"
block = 256
args = ["x", "y", "a", "b", "steps", "n"]
+++*/
#include "chain.cuh"

// ANCHOR: kernel
extern "C" __global__ void fma_tiles(const float* x, float* y, float a, float b,
                                     unsigned int steps, unsigned int n) {
    run_tile(x, y, a, b, steps, n, blockIdx.x);
}
// ANCHOR_END: kernel
