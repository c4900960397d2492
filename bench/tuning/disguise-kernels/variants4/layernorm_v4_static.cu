/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Round-2 variant C (of variant B), for 2^10 and 2^12, whose shapes get a
# compiled copy of their own. Rows up to 32 x 1024 = 32768 floats fit.
sizes = ["2^10", "2^12"]
# One row per block; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers.
[[launch]]
kernel = "layernorm_v4_static"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// VARIANT C of layernorm_v4_warpsum (variant B), one change: the two
// timed shapes get a copy of the body with the block size and the row
// length as compile-time constants (1024 floats on 32 threads, 4096 on
// 128: 32 floats a thread, nothing past the row's end), as Inductor
// compiles its kernel for the shape it sees. What that removes, per row:
// - every bounds test (and select, and index clamp) on the x loads, the
//   deviations, the weight/bias loads and the y stores;
// - the 64-bit address computed per load and store: with blockDim known
//   the k-th float4 is at a constant offset from the thread's first, so
//   each of x, weight, bias and y needs one address and immediates;
// - the two IEEE divisions by cols and their slow-path calls: a
//   multiplication by 1/1024 or 1/4096, exact for a power of two.
// Any other shape (all the edge shapes) runs variant B's body, the same
// template with the block and row length read at run time (keeping one
// weight/bias pair ahead instead of two, which would spill there).
//
// At 2^12 the block is four warps, so B's one-warp shortcut does not apply
// there and this is one change against variant A at that size.
//
// Everything else is variant B: weight and bias loads early, two plain
// sums (the row's sum, then its squared deviations from the row's mean,
// which are small numbers: never E[x^2] - mean^2), shuffles only for a
// block of one warp.

#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread
#define WB_AHEAD 2                         // weight/bias float4 pairs in flight
#define WB_EARLY 1                         // of them, issued before the reductions

__device__ float warp_sum(float s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, offset);
    }
    return s;
}

// The block's sum, returned to every thread; warp_sums is this call's own
// shared array, so two calls need no barrier between them. nt is
// blockDim.x, or the constant it is known to be; a block of one warp skips
// shared memory.
__device__ __forceinline__ float block_sum(float s, float* warp_sums, unsigned int nt) {
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_sum(s);
    if (nt == 32) {
        return s;  // one warp: its sum is the block's, in every lane
    }
    if (lane == 0) {
        warp_sums[warp] = s;
    }
    __syncthreads();
    s = 0.0f;
    if (lane < nt / 32) {
        s = warp_sums[lane];
    }
    return warp_sum(s);
}

// One row per block. BLOCK == 0: the block's size and the row's length are
// read at run time and every access is tested (variant B). BLOCK > 0: the
// block has BLOCK threads and the row PER_THREAD * BLOCK floats, known to
// the compiler, so every register holds a column and nothing is tested.
template <unsigned int BLOCK>
__device__ __forceinline__ void row_body(const float* __restrict__ x, const float* __restrict__ weight,
                                         const float* __restrict__ bias, float* __restrict__ y,
                                         float eps, unsigned int run_cols) {
    constexpr bool STATIC = BLOCK != 0;
    const unsigned int nt = STATIC ? BLOCK : blockDim.x;
    const unsigned int cols = STATIC ? PER_THREAD * BLOCK : run_cols;
    const unsigned int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4.
    bool vec = STATIC || cols % 4 == 0;
    // Register k holds column 4 * (t + (k / 4) * nt) + k % 4 with float4
    // loads, t + k * nt without: either way a warp's loads are contiguous.
    auto in_row = [&](int k) {
        return STATIC || (vec ? t + (k / 4) * nt < cols / 4 : t + k * nt < cols);
    };

    // All loads are issued before any is used. Columns past the row's end
    // read as 0, so they add nothing to the sum.
    float v[PER_THREAD];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = t + k * nt;
            float4 q = in_row(4 * k) ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * k] = q.x;
            v[4 * k + 1] = q.y;
            v[4 * k + 2] = q.z;
            v[4 * k + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = t + k * nt;
            v[k] = j < cols ? xr[j] : 0.0f;
        }
    }

    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        sum += v[k];
    }
    // The first WB_EARLY weight and bias pairs, requested before the
    // reductions, whose latency then covers theirs. On the vector path
    // cols >= 4, so float4 0 exists.
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    // Pairs in flight: WB_AHEAD in the static bodies, as variant B; one in
    // the run-time body, which only the edge shapes reach: with two, this
    // kernel (three bodies) spills 16 bytes there.
    constexpr int AH = STATIC ? WB_AHEAD : 1;
    float4 wq[WB_AHEAD], bq[WB_AHEAD];
    if (vec) {
#pragma unroll
        for (int d = 0; d < WB_EARLY; ++d) {
            unsigned int i = t + d * nt;
            unsigned int c = in_row(4 * d) ? i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }
    __shared__ float sums[32];
    __shared__ float squares[32];
    // 1.0f / cols is exact for the static shapes (powers of two) and folded
    // by the compiler; the run-time path divides, as variant B.
    float mean = STATIC ? block_sum(sum, sums, nt) * (1.0f / cols) : block_sum(sum, sums, nt) / cols;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        float dev = in_row(k) ? v[k] - mean : 0.0f;
        m2 += dev * dev;
    }
    m2 = block_sum(m2, squares, nt);
    // The rest of the first WB_AHEAD pairs, now that the reductions'
    // registers are free.
    if (vec) {
#pragma unroll
        for (int d = WB_EARLY; d < AH; ++d) {
            unsigned int i = t + d * nt;
            unsigned int c = in_row(4 * d) ? i : 0;
            wq[d] = w4[c];
            bq[d] = b4[c];
        }
    }

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float rstd = rsqrtf((STATIC ? m2 * (1.0f / cols) : m2 / cols) + eps);
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = t + k * nt;
            float4 w = wq[k % AH], b = bq[k % AH];
            if (k + AH < VEC_PER_THREAD) {
                unsigned int ahead = t + (k + AH) * nt;
                unsigned int c = in_row(4 * (k + AH)) ? ahead : 0;
                wq[k % AH] = w4[c];
                bq[k % AH] = b4[c];
            }
            if (in_row(4 * k)) {
                y4[i] = make_float4(fmaf((v[4 * k] - mean) * rstd, w.x, b.x),
                                    fmaf((v[4 * k + 1] - mean) * rstd, w.y, b.y),
                                    fmaf((v[4 * k + 2] - mean) * rstd, w.z, b.z),
                                    fmaf((v[4 * k + 3] - mean) * rstd, w.w, b.w));
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = t + k * nt;
            if (j < cols) {
                yr[j] = fmaf((v[k] - mean) * rstd, weight[j], bias[j]);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) layernorm_v4_static(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    // blockDim.x and cols are the same in every thread: no divergence.
    if (blockDim.x == 32 && cols == PER_THREAD * 32) {
        row_body<32>(x, weight, bias, y, eps, cols);  // 2^10
    } else if (blockDim.x == 128 && cols == PER_THREAD * 128) {
        row_body<128>(x, weight, bias, y, eps, cols);  // 2^12
    } else {
        row_body<0>(x, weight, bias, y, eps, cols);
    }
}
