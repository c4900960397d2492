// Sums over a warp and over a block, with warp shuffles; shared by the
// reduction kernels that include it.

// Lane 0 ends with the sum of v over the warp.
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

// The sum of v over the block, valid in thread 0. blockDim.x must be a
// multiple of 32, and every thread of the block must call it.
__device__ float block_sum(float v) {
    __shared__ float warp_totals[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) {
        warp_totals[warp] = v;
    }
    __syncthreads();
    v = threadIdx.x < blockDim.x / 32 ? warp_totals[lane] : 0.0f;
    return warp == 0 ? warp_sum(v) : 0.0f;
}
