// One element of the fma_f32 problem: `steps` dependent multiply-adds. A
// thread that runs several elements runs their chains one after another
// (the loops that call this say `#pragma unroll 1`), so a thread has one
// multiply-add in flight at a time, and only other warps hide its latency.
// ANCHOR: chain
__device__ float chain(float v, float a, float b, unsigned int steps) {
    for (unsigned int s = 0; s < steps; ++s) {
        v = fmaf(v, a, b);
    }
    return v;
}
// ANCHOR_END: chain

// A tile is TILE consecutive elements, worked by one block of 256 threads:
// thread t takes elements t, t + 256, ... of it, eight in all.
#define TILE 2048

__device__ void run_tile(const float* x, float* y, float a, float b, unsigned int steps,
                         unsigned int n, unsigned int tile) {
#pragma unroll 1
    for (unsigned int e = threadIdx.x; e < TILE; e += blockDim.x) {
        unsigned int i = tile * TILE + e;
        if (i < n) {
            y[i] = chain(x[i], a, b, steps);
        }
    }
}
