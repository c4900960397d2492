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

// -FLT_MAX rather than -infinity: an empty partial then rescales by
// exp(-FLT_MAX - m) = 0 instead of exp(-inf + inf) = NaN.
#define LOWEST (-3.402823466e38f)

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
