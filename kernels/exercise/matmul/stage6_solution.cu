/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048"]
# One block of 256 threads per 128 x 128 tile of C, tiles numbered across
# C's columns first; each thread computes an 8 x 8 tile of C.
[[launch]]
kernel = "mm_stage6_solution"
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

// Stage 5's kernel with a warp layout whose shared-memory reads have no
// bank conflicts. A warp is 4 x 8 threads (lane l is (l / 8, l % 8)), the
// 8 warps of the block 4 x 2, each warp a 32 x 64 tile of C; a thread's
// 8 x 8 elements are four 4 x 4 sub-tiles, 16 rows and 32 columns apart,
// so that the 8 lanes of a quarter-warp read 8 neighbouring float4 of a
// row of B's slice and one float4 of A's. A's slice is padded to 132
// floats a row, so that the 4 stores of one float4 of A by neighbouring
// threads fall in different banks.
extern "C" __global__ void __launch_bounds__(THREADS)
mm_stage6_solution(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                   unsigned m, unsigned n, unsigned k) {
    __shared__ __align__(16) float as[BK][BM + 4];
    __shared__ __align__(16) float bs[BK][BN];
    const unsigned tiles_n = (n + BN - 1) / BN;
    const unsigned row0 = (blockIdx.x / tiles_n) * BM;
    const unsigned col0 = (blockIdx.x % tiles_n) * BN;
    const unsigned t = threadIdx.x;
    // ANCHOR: layout
    const unsigned warp = t / 32, lane = t % 32;
    const unsigned wm0 = (warp / 2) * 32 + (lane / 8) * 4;  // the thread's first row
    const unsigned wn0 = (warp % 2) * 64 + (lane % 8) * 4;  // and column in the tile
    // ANCHOR_END: layout
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
        // Rows wm0 + 16 g + i and columns wn0 + 32 h + j of the tile, g, h
        // in 0..1 and i, j in 0..3: two float4 of A and two of B a step.
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) {
                const float4 v = *reinterpret_cast<const float4*>(&as[kk][wm0 + 16 * g]);
                ra[4 * g] = v.x, ra[4 * g + 1] = v.y, ra[4 * g + 2] = v.z, ra[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int h = 0; h < TN / 4; ++h) {
                const float4 v = *reinterpret_cast<const float4*>(&bs[kk][wn0 + 32 * h]);
                rb[4 * h] = v.x, rb[4 * h + 1] = v.y, rb[4 * h + 2] = v.z, rb[4 * h + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        // ANCHOR_END: multiply
        __syncthreads();
    }

    // Element (i, j) of the thread's 8 x 8 is row wm0 + 16 (i / 4) + i % 4
    // and column wn0 + 32 (j / 4) + j % 4 of the tile.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const unsigned gr = row0 + wm0 + 16 * (i / 4) + i % 4;
#pragma unroll
        for (int h = 0; h < TN / 4; ++h) {
            const unsigned gc = col0 + wn0 + 32 * h;
            if (whole) {
                *reinterpret_cast<float4*>(&c[(size_t)gr * n + gc]) =
                    make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (gr < m && gc + j < n) c[(size_t)gr * n + gc + j] = acc[i][4 * h + j];
            }
        }
    }
}
