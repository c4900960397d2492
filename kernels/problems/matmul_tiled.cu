/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 1024", "M = N = K = 2048", "M = N = K = 4096"]
[[launch]]
kernel = "matmul_tiled"
grid = "ceil_div(m, 128) * ceil_div(n, 128)"
block = 256
args = ["a", "b", "c", "m", "n", "k"]
+++*/
// C = A B, row-major float32. Each block computes a 128 x 128 tile of C
// from 128 x 8 slices of A and 8 x 128 slices of B staged in shared memory;
// each of its 256 threads keeps an 8 x 8 tile of C in registers, so every
// value read from shared memory feeds 8 fused multiply-adds. The grid is
// one-dimensional: block b computes tile row b / tiles_n, tile column
// b % tiles_n. Loads past the edge of A or B read 0 and stores past the
// edge of C are skipped, so every M, N and K works.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS)
matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
             unsigned m, unsigned n, unsigned k) {
    // A's slice is stored transposed (as[kk][row]) so that a thread's 8
    // rows at one kk are 8 consecutive floats, as B's 8 columns are.
    __shared__ __align__(16) float as[BK][BM];
    __shared__ __align__(16) float bs[BK][BN];
    const unsigned tiles_n = (n + BN - 1) / BN;
    const unsigned row0 = (blockIdx.x / tiles_n) * BM;
    const unsigned col0 = (blockIdx.x % tiles_n) * BN;
    const unsigned tid = threadIdx.x;
    const unsigned ty = tid / (BN / TN), tx = tid % (BN / TN);

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        // ANCHOR: stage
        // Each thread stages 4 of the slice's 1024 elements of A and of B.
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            const unsigned idx = tid + l * THREADS;
            const unsigned r = idx / BK, kk = idx % BK;
            const unsigned gr = row0 + r, gk = k0 + kk;
            as[kk][r] = (gr < m && gk < k) ? a[(size_t)gr * k + gk] : 0.0f;
            const unsigned kb = idx / BN, cc = idx % BN;
            const unsigned gkb = k0 + kb, gc = col0 + cc;
            bs[kb][cc] = (gkb < k && gc < n) ? b[(size_t)gkb * n + gc] : 0.0f;
        }
        __syncthreads();
        // ANCHOR_END: stage
        // ANCHOR: multiply
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) ra[i] = as[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) rb[j] = bs[kk][tx * TN + j];
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
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const unsigned gc = col0 + tx * TN + j;
            if (gr < m && gc < n) c[(size_t)gr * n + gc] = acc[i][j];
        }
    }
}
