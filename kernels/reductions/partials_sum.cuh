// The second pass of the write-partials kernels: the fold kernels write
// one partial sum per block instead of adding it to `out` with an atomic,
// so that the time of the fold is not hidden behind a chain of atomics on
// one address. This pass sums the partials: a grid-stride loop, a block
// reduction with warp shuffles, one atomic per block.

#include "block_sum.cuh"

extern "C" __global__ void sum_partials(const float* __restrict__ partials, float* __restrict__ out,
                                        unsigned int count) {
    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        sum += partials[i];
    }
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        atomicAdd(out, total);
    }
}
