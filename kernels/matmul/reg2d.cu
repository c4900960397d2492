/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 2048", "M = N = K = 4096", "M = N = K = 8192"]
# One block of 256 threads per 128 x 128 tile of C, tiles numbered across
# C's columns first; each thread computes an 8 x 8 tile of C.
[[launch]]
kernel = "matmul_reg2d"
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

// Each block computes a 128 x 128 tile of C from 128 x 8 slices of A and
// 8 x 128 slices of B in shared memory. Its 256 threads are 16 x 16:
// thread t computes the 8 x 8 elements of C in rows 8 (t / 16) to
// 8 (t / 16) + 7 and columns 8 (t % 16) to 8 (t % 16) + 7 of the tile.
// Loads past the edge of A or B read 0 and stores past the edge of C are
// skipped, so every M, N and K works.
extern "C" __global__ void __launch_bounds__(THREADS)
matmul_reg2d(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
             unsigned m, unsigned n, unsigned k) {
    __shared__ __align__(16) float as[BM][BK];
    __shared__ __align__(16) float bs[BK][BN];
    const unsigned tiles_n = (n + BN - 1) / BN;
    const unsigned row0 = (blockIdx.x / tiles_n) * BM;
    const unsigned col0 = (blockIdx.x % tiles_n) * BN;
    const unsigned t = threadIdx.x;
    const unsigned ty = t / (BN / TN), tx = t % (BN / TN);

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        // Each thread stages 4 of the slice's 1024 elements of A and of B.
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            const unsigned idx = t + l * THREADS;
            const unsigned r = idx / BK, kk = idx % BK;
            as[r][kk] = (row0 + r < m && k0 + kk < k) ? a[(size_t)(row0 + r) * k + k0 + kk] : 0.0f;
            const unsigned kb = idx / BN, cc = idx % BN;
            bs[kb][cc] = (k0 + kb < k && col0 + cc < n) ? b[(size_t)(k0 + kb) * n + col0 + cc] : 0.0f;
        }
        __syncthreads();
        // ANCHOR: multiply
        // At each step kk: 8 values of A (a column of the thread's rows)
        // and 8 of B (a row of its columns) from shared memory feed 64
        // multiply-adds into the 8 x 8 accumulators in registers.
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) ra[i] = as[ty * TM + i][kk];
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
