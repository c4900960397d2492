/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Variant (e) of layernorm_cached_block, for the short rows where it trails
# torch.compile. Rows up to 32 x 1024 = 32768 floats fit.
sizes = ["2^10", "2^12"]
# One row per block; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers.
[[launch]]
kernel = "layernorm_cached_twosum"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// VARIANT (e) of layernorm_cached_block, one change: the reduction. The
// base merges (n, mean, m2) triples across the block with Chan's formula:
// three shuffles and an IEEE division per step, ten steps, all between the
// row's loads and its stores. With the whole row in registers the exact
// two-pass form needs only two plain sums: the row's sum (so its mean),
// then the sum of squared deviations from that mean. Each block sum is one
// shuffle and one add per step; the deviations are small numbers, so
// nothing cancels (never E[x^2] - mean^2).
//
// The row is read from DRAM once, into registers, and written once.

#define VEC_PER_THREAD 8                   // float4 loads per thread
#define PER_THREAD (4 * VEC_PER_THREAD)    // floats held per thread

__device__ float warp_sum(float s) {
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, offset);
    }
    return s;
}

// The block's sum, returned to every thread; warp_sums is this call's own
// shared array, so two calls need no barrier between them.
__device__ float block_sum(float s, float* warp_sums) {
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    s = warp_sum(s);
    if (lane == 0) {
        warp_sums[warp] = s;
    }
    __syncthreads();
    s = 0.0f;
    if (lane < blockDim.x / 32) {
        s = warp_sums[lane];
    }
    return warp_sum(s);
}

// Whether this thread's k-th register holds a column of the row. Register k
// holds column 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4 with float4
// loads, threadIdx.x + k * blockDim.x without, so either way a warp's loads
// are contiguous. With float4 loads the test is per load, shared by four
// registers, which keeps it out of the per-element work.
__device__ bool in_row(int k, bool vec, unsigned int cols) {
    return vec ? threadIdx.x + (k / 4) * blockDim.x < cols / 4 : threadIdx.x + k * blockDim.x < cols;
}

extern "C" __global__ void __launch_bounds__(1024) layernorm_cached_twosum(
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
            float4 t = i < cols / 4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
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
    // Two passes over registers cost no memory traffic: the row's mean
    // first, then squared deviations from it, which are small numbers.
    // Columns past the row's end hold 0 and add nothing to the sum.
    __shared__ float sums[32];
    __shared__ float squares[32];
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        sum += v[k];
    }
    float mean = block_sum(sum, sums) / cols;
    float m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        float dev = in_row(k, vec, cols) ? v[k] - mean : 0.0f;
        m2 += dev * dev;
    }
    m2 = block_sum(m2, squares);
    // ANCHOR_END: two_pass

    // Biased variance (divide by n), as torch.nn.functional.layer_norm.
    float rstd = rsqrtf(m2 / cols + eps);
    if (vec) {
        const float4* w4 = reinterpret_cast<const float4*>(weight);
        const float4* b4 = reinterpret_cast<const float4*>(bias);
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < VEC_PER_THREAD; ++k) {
            unsigned int i = threadIdx.x + k * blockDim.x;
            if (i < cols / 4) {
                float4 w = w4[i], b = b4[i];
                y4[i] = make_float4(fmaf((v[4 * k] - mean) * rstd, w.x, b.x),
                                    fmaf((v[4 * k + 1] - mean) * rstd, w.y, b.y),
                                    fmaf((v[4 * k + 2] - mean) * rstd, w.z, b.z),
                                    fmaf((v[4 * k + 3] - mean) * rstd, w.w, b.w));
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
