// The moments shared by the layer-norm kernels of "Reductions in disguise":
// a row's count, mean and sum of squared deviations so far, Welford's update
// by one element, Chan's merge of two partials, and the merge over a warp
// and over a block.

// ANCHOR: moments
// n elements, their mean, and m2 = sum of (x - mean)^2. n is a float: it
// is exact up to 2^24 and saves conversions in the merge.
struct Moments {
    float n;
    float mean;
    float m2;
};

// Welford: one element into a running partial.
__device__ Moments add(Moments s, float v) {
    s.n += 1.0f;
    float delta = v - s.mean;
    s.mean += delta / s.n;
    s.m2 += delta * (v - s.mean);
    return s;
}

// Chan et al.: two partials into one. Only the difference of the means is
// squared, never a raw x.
__device__ Moments merge(Moments a, Moments b) {
    float n = a.n + b.n;
    if (n == 0.0f) {
        return a;
    }
    float delta = b.mean - a.mean;
    float fb = b.n / n;
    return {n, a.mean + delta * fb, a.m2 + b.m2 + delta * delta * a.n * fb};
}
// ANCHOR_END: moments

// The moments of the warp's 32 partials, in every lane.
__device__ Moments warp_merge(Moments s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        Moments other = {__shfl_xor_sync(0xffffffffu, s.n, offset),
                         __shfl_xor_sync(0xffffffffu, s.mean, offset),
                         __shfl_xor_sync(0xffffffffu, s.m2, offset)};
        s = merge(s, other);
    }
    return s;
}

// The block's moments, returned to every thread. Call once per block.
__device__ Moments block_merge(Moments s) {
    __shared__ Moments warp_moments[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_merge(s);
    if (lane == 0) {
        warp_moments[warp] = s;
    }
    __syncthreads();
    s = {0.0f, 0.0f, 0.0f};
    if (lane < blockDim.x / 32) {
        s = warp_moments[lane];
    }
    return warp_merge(s);
}
