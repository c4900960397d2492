/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048"]
# One block of 256 threads per 128 x 128 tile of C, tiles numbered across
# C's columns first; each thread computes an 8 x 8 tile of C.
[[launch]]
kernel = "mm_stage6_pad_only"
grid = "ceil_div(m, 128) * ceil_div(n, 128)"
block = 256
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

// A control for stage 6: stage 5's kernel with A's slice padded to 132
// floats a row and nothing else changed. The stores of A no longer
// conflict; the warp is still 2 x 16 threads, each reading 8 neighbouring
// columns of B's slice, so a quarter-warp's 8 float4 of B lie 32 bytes
// apart, two in each group of 4 banks.
extern "C" __global__ void __launch_bounds__(THREADS)
mm_stage6_pad_only(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                   unsigned m, unsigned n, unsigned k) {
    __shared__ __align__(16) float as[BK][BM + 4];
    __shared__ __align__(16) float bs[BK][BN];
    const unsigned tiles_n = (n + BN - 1) / BN;
    const unsigned row0 = (blockIdx.x / tiles_n) * BM;
    const unsigned col0 = (blockIdx.x % tiles_n) * BN;
    const unsigned t = threadIdx.x;
    const unsigned ty = t / (BN / TN), tx = t % (BN / TN);
    const bool whole = row0 + BM <= m && col0 + BN <= n && k % BK == 0 && n % 4 == 0;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    // ANCHOR: stage
    // A's slice is 128 rows of 2 float4, B's 8 rows of 32 float4: one of
    // each per thread.
    const unsigned ar = t / (BK / 4), aq = t % (BK / 4);
    const unsigned bk = t / (BN / 4), bq = t % (BN / 4);
    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        if (whole) {
            const float4 va = *reinterpret_cast<const float4*>(&a[(size_t)(row0 + ar) * k + k0 + 4 * aq]);
            as[4 * aq + 0][ar] = va.x;
            as[4 * aq + 1][ar] = va.y;
            as[4 * aq + 2][ar] = va.z;
            as[4 * aq + 3][ar] = va.w;
            *reinterpret_cast<float4*>(&bs[bk][4 * bq]) =
                *reinterpret_cast<const float4*>(&b[(size_t)(k0 + bk) * n + col0 + 4 * bq]);
        } else {
            // ANCHOR_END: stage
#pragma unroll
            for (int l = 0; l < BM * BK / THREADS; ++l) {
                const unsigned idx = t + l * THREADS;
                const unsigned r = idx / BK, kk = idx % BK;
                as[kk][r] = (row0 + r < m && k0 + kk < k) ? a[(size_t)(row0 + r) * k + k0 + kk] : 0.0f;
                const unsigned kb = idx / BN, cc = idx % BN;
                bs[kb][cc] = (k0 + kb < k && col0 + cc < n) ? b[(size_t)(k0 + kb) * n + col0 + cc] : 0.0f;
            }
        }
        __syncthreads();
        // ANCHOR: multiply
        // Thread (ty, tx) reads its 8 values of A and 8 of B at each step
        // kk as two float4 each, neighbouring floats of one row of a slice.
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&as[kk][ty * TM + i]);
                ra[i] = v.x, ra[i + 1] = v.y, ra[i + 2] = v.z, ra[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&bs[kk][tx * TN + j]);
                rb[j] = v.x, rb[j + 1] = v.y, rb[j + 2] = v.z, rb[j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        // ANCHOR_END: multiply
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const unsigned gr = row0 + ty * TM + i;
        if (whole) {
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&c[(size_t)gr * n + col0 + tx * TN + j]) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        } else {
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                const unsigned gc = col0 + tx * TN + j;
                if (gr < m && gc < n) c[(size_t)gr * n + gc] = acc[i][j];
            }
        }
    }
}
