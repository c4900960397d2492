/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Variant (b) of layernorm_cached_block, for the short rows where it trails
# torch.compile. Rows up to 32 x 1024 = 32768 floats fit.
sizes = ["2^10", "2^12"]
# One row per block; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers.
[[launch]]
kernel = "layernorm_cached_stream"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// VARIANT (b) of layernorm_cached_block, one change: cache hints on the
// streamed data. x is read with __ldcs (ld.global.cs, evict first) and y
// written with __stcs (st.global.cs), since neither is touched again, so
// that the weight and bias, which every row reads, stay in L1 and L2. The
// float4 path only: the scalar path serves the edge shapes.
//
// The row is read from DRAM once, into registers, and written once. With
// the values at hand the variance needs no running update: each thread
// takes its own exact two-pass mean and m2 over its 32 values, and one
// Chan merge across the block combines them.

#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

// n elements, their mean, and m2 = sum of (x - mean)^2.
struct Moments {
    float n;
    float mean;
    float m2;
};

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

// Whether this thread's k-th register holds a column of the row. Register k
// holds column 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4 with float4
// loads, threadIdx.x + k * blockDim.x without, so either way a warp's loads
// are contiguous. With float4 loads the test is per load, shared by four
// registers, which keeps it out of the per-element work.
__device__ bool in_row(int k, bool vec, unsigned int cols) {
    return vec ? threadIdx.x + (k / 4) * blockDim.x < cols / 4 : threadIdx.x + k * blockDim.x < cols;
}

extern "C" __global__ void __launch_bounds__(1024) layernorm_cached_stream(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    if (cols > PER_THREAD * blockDim.x) {
        __trap();  // the launch gave too few threads to hold the row
    }
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // A row starts on a 16-byte boundary only when cols is a multiple of 4.
    bool vec = cols % 4 == 0;

    // All loads are issued before any is used. Columns past the row's end
    // read as 0 and are left out of the counts below.
    float v[PER_THREAD];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            float4 t = i < cols / 4 ? __ldcs(&x4[i]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * k] = t.x;
            v[4 * k + 1] = t.y;
            v[4 * k + 2] = t.z;
            v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            v[k] = j < cols ? xr[j] : 0.0f;
        }
    }

    // ANCHOR: two_pass
    // Two passes over registers cost no memory traffic: the mean first,
    // then squared deviations from it, which are small numbers.
    float n = 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        n += in_row(k, vec, cols) ? 1.0f : 0.0f;
        sum += v[k];
    }
    float local_mean = n > 0.0f ? sum / n : 0.0f;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        float dev = in_row(k, vec, cols) ? v[k] - local_mean : 0.0f;
        m2 += dev * dev;
    }
    Moments row = block_merge({n, local_mean, m2});
    // ANCHOR_END: two_pass

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float mean = row.mean;
    float rstd = rsqrtf(row.m2 / cols + eps);
    if (vec) {
        const float4* w4 = reinterpret_cast<const float4*>(weight);
        const float4* b4 = reinterpret_cast<const float4*>(bias);
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < cols / 4) {
                float4 w = w4[i], b = b4[i];
                __stcs(&y4[i], make_float4(fmaf((v[4 * k] - mean) * rstd, w.x, b.x),
                                           fmaf((v[4 * k + 1] - mean) * rstd, w.y, b.y),
                                           fmaf((v[4 * k + 2] - mean) * rstd, w.z, b.z),
                                           fmaf((v[4 * k + 3] - mean) * rstd, w.w, b.w)));
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned int j = threadIdx.x + k * blockDim.x;
            if (j < cols) {
                yr[j] = fmaf((v[k] - mean) * rstd, weight[j], bias[j]);
            }
        }
    }
}
