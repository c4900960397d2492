// The FMA chain of the fma_f32 problem: K elements per thread, each its own
// chain of `steps` dependent fmaf, the chains interleaved so that the
// scheduler always has K independent FMAs of this thread to issue.
// A grid-stride loop covers n; the last pass guards each element.
// ANCHOR: chains
template <int K>
__device__ void fma_chains(const float* x, float* y, float a, float b, unsigned int steps,
                           unsigned int n) {
    unsigned int threads = gridDim.x * blockDim.x;
    for (unsigned int base = blockIdx.x * blockDim.x + threadIdx.x; base < n;
         base += K * threads) {
        float v[K];
#pragma unroll
        for (int c = 0; c < K; ++c) {
            unsigned int i = base + c * threads;
            v[c] = i < n ? x[i] : 0.0f;
        }
#pragma unroll 16
        for (unsigned int s = 0; s < steps; ++s) {
#pragma unroll
            for (int c = 0; c < K; ++c) v[c] = fmaf(v[c], a, b);
        }
#pragma unroll
        for (int c = 0; c < K; ++c) {
            unsigned int i = base + c * threads;
            if (i < n) y[i] = v[c];
        }
    }
}
// ANCHOR_END: chains
