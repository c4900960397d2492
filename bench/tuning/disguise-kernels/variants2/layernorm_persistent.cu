/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for short rows, 2^10 and 2^12 floats: a block per SM slot walks
# many rows. Rows up to 8 x 1024 = 8192 floats fit.
sizes = ["2^10", "2^12"]
# A warp for every 256 columns (8 floats a thread); as many blocks as fill
# 1024 threads of every SM, each looping over rows.
[[launch]]
kernel = "layernorm_persistent"
grid = "min(rows, sms * max(1, 1024 / min(1024, 32 * ceil_div(cols, 256))))"
block = "min(1024, 32 * ceil_div(cols, 256))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cached_block made persistent: a block keeps its slice of the
// weight and bias in registers for every row it handles, and loads the next
// row's slice while it reduces and writes the current one. One block-wide
// Chan merge per row, with one barrier.

#define VEC_PER_THREAD 2                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

// n elements, their mean, and m2 = sum of (x - mean)^2.
struct Moments {
    float n;
    float mean;
    float m2;
};

// Chan et al.: two partials into one.
__device__ Moments merge(Moments a, Moments b) {
    float n = a.n + b.n;
    if (n == 0.0f) {
        return a;
    }
    float delta = b.mean - a.mean;
    float fb = b.n / n;
    return {n, a.mean + delta * fb, a.m2 + b.m2 + delta * delta * a.n * fb};
}

__device__ Moments warp_merge(Moments s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        Moments other = {__shfl_xor_sync(0xffffffffu, s.n, offset),
                         __shfl_xor_sync(0xffffffffu, s.mean, offset),
                         __shfl_xor_sync(0xffffffffu, s.m2, offset)};
        s = merge(s, other);
    }
    return s;
}

// Register k's column: with float4 loads 4 * (threadIdx.x + (k / 4) *
// blockDim.x) + k % 4, without threadIdx.x + k * blockDim.x.
__device__ unsigned int column(int k, bool vec) {
    return vec ? 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4 : threadIdx.x + k * blockDim.x;
}

// Loads this thread's share of a row; columns past the end read as 0.
__device__ void load_row(const float* xs, unsigned int cols, bool vec, float v[PER_THREAD]) {
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xs);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < cols / 4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = column(k, false);
            v[k] = j < cols ? xs[j] : 0.0f;
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024)
    layernorm_persistent(const float* __restrict__ x, const float* __restrict__ weight,
                         const float* __restrict__ bias, float* __restrict__ y, float eps,
                         unsigned int rows, unsigned int cols) {
    // Two sets of per-warp moments, used in turn by successive rows, so
    // one barrier per row keeps a slow warp's reads apart from the next
    // row's writes.
    __shared__ Moments warp_moments[2][32];
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold a row
    }
    bool vec = cols % 4 == 0;
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    unsigned int warps = blockDim.x / 32;

    float w[PER_THREAD], b[PER_THREAD];
    float n = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned int j = column(k, vec);
        bool in = j < cols;
        w[k] = in ? weight[j] : 0.0f;
        b[k] = in ? bias[j] : 0.0f;
        n += in ? 1.0f : 0.0f;
    }

    float v[PER_THREAD];
    size_t row = blockIdx.x;
    if (row < rows) {
        load_row(x + row * cols, cols, vec, v);
    }
    for (unsigned int turn = 0; row < rows; row += gridDim.x, turn ^= 1) {
        // The next row's loads go out before this row's arithmetic.
        float next[PER_THREAD];
        size_t after = row + gridDim.x;
        if (after < rows) {
            load_row(x + after * cols, cols, vec, next);
        }

        // Exact two-pass moments of this thread's values, then one merge.
        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            sum += v[k];
        }
        float local_mean = n > 0.0f ? sum / n : 0.0f;
        float m2 = 0.0f;
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            float dev = column(k, vec) < cols ? v[k] - local_mean : 0.0f;
            m2 += dev * dev;
        }
        Moments s = warp_merge({n, local_mean, m2});
        if (lane == 0) {
            warp_moments[turn][warp] = s;
        }
        __syncthreads();
        s = {0.0f, 0.0f, 0.0f};
        if (lane < warps) {
            s = warp_moments[turn][lane];
        }
        Moments total = warp_merge(s);

        // Biased variance (divide by n), as torch.nn.functional.layer_norm.
        float mean = total.mean;
        float rstd = rsqrtf(total.m2 / cols + eps);
        float* ys = y + row * cols;
        if (vec) {
            float4* y4 = reinterpret_cast<float4*>(ys);
#pragma unroll
            for (int k = 0; k < VEC_PER_THREAD; ++k) {
                unsigned int i = threadIdx.x + k * blockDim.x;
                if (i < cols / 4) {
                    y4[i] = make_float4(fmaf((v[4 * k] - mean) * rstd, w[4 * k], b[4 * k]),
                                        fmaf((v[4 * k + 1] - mean) * rstd, w[4 * k + 1], b[4 * k + 1]),
                                        fmaf((v[4 * k + 2] - mean) * rstd, w[4 * k + 2], b[4 * k + 2]),
                                        fmaf((v[4 * k + 3] - mean) * rstd, w[4 * k + 3], b[4 * k + 3]));
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < PER_THREAD; ++k) {
                unsigned int j = column(k, false);
                if (j < cols) {
                    ys[j] = fmaf((v[k] - mean) * rstd, w[k], b[k]);
                }
            }
        }
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            v[k] = next[k];
        }
    }
}
