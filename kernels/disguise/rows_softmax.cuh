// The online-softmax partial shared by the softmax kernels of "Reductions
// in disguise": a row's (max, sum of exponentials) so far, how two
// partials combine, and the combine over a warp and over a block; and the
// plain block sum of the kernels that take the max and the sum apart.

// -FLT_MAX rather than -infinity: an empty partial then rescales by
// exp(-FLT_MAX - m) = 0 instead of exp(-inf + inf) = NaN.
#define LOWEST (-3.402823466e38f)
// -infinity, which registers past the end of a row (or of a block's slice)
// hold: its exp is exactly 0, so the passes over them need no bounds checks.
#define PAD __int_as_float(0xff800000u)

// ANCHOR: merge
// A partial softmax denominator: d = sum of exp(x - m) over the elements
// seen so far, m their max.
struct MaxSum {
    float m;
    float d;
};

// Two partials combine by rescaling each sum to the larger max.
__device__ MaxSum merge(MaxSum a, MaxSum b) {
    float m = fmaxf(a.m, b.m);
    return {m, a.d * expf(a.m - m) + b.d * expf(b.m - m)};
}

// Four new elements at a time: one rescale of the old sum per float4,
// rather than one per element.
__device__ MaxSum add4(MaxSum s, float4 v) {
    float m = fmaxf(fmaxf(s.m, fmaxf(v.x, v.y)), fmaxf(v.z, v.w));
    float d = s.d * expf(s.m - m);
    d += (expf(v.x - m) + expf(v.y - m)) + (expf(v.z - m) + expf(v.w - m));
    return {m, d};
}
// ANCHOR_END: merge

// The (max, sum) of the warp's 32 partials, in every lane.
__device__ MaxSum warp_merge(MaxSum s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        MaxSum other = {__shfl_xor_sync(0xffffffffu, s.m, offset),
                        __shfl_xor_sync(0xffffffffu, s.d, offset)};
        s = merge(s, other);
    }
    return s;
}

// The block's (max, sum), returned to every thread. Call once per block.
__device__ MaxSum block_merge(MaxSum s) {
    __shared__ float warp_m[32];
    __shared__ float warp_d[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_merge(s);
    if (lane == 0) {
        warp_m[warp] = s.m;
        warp_d[warp] = s.d;
    }
    __syncthreads();
    s = {LOWEST, 0.0f};
    if (lane < blockDim.x / 32) {
        s = {warp_m[lane], warp_d[lane]};
    }
    return warp_merge(s);
}

// The sum of v over the block, returned to every thread. blockDim.x must be
// a multiple of 32; every thread must call it, and only once per block (its
// shared slots are not fenced for reuse).
__device__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    // Every warp folds the per-warp sums itself, so no second barrier is
    // needed to hand the total back.
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
}
