/*+++
problem = "matmul_f32"
sizes = ["M = N = K = 1024", "M = N = K = 2048", "M = N = K = 4096"]
# One block of 512 threads per 64 x 64 tile of C, tiles numbered across
# C's columns first; each thread computes 8 elements of one column.
[[launch]]
kernel = "matmul_reg1d"
grid = "ceil_div(m, 64) * ceil_div(n, 64)"
block = 512
args = ["a", "b", "c", "m", "n", "k"]
+++*/

#define BM 64
#define BN 64
#define BK 8
#define TM 8
#define THREADS 512

// ANCHOR: kernel
// Each block computes a 64 x 64 tile of C from 64 x 8 slices of A and
// 8 x 64 slices of B in shared memory. Thread t computes the 8 elements
// of column t % 64 in rows 8 (t / 64) to 8 (t / 64) + 7 of the tile, in
// registers: at each step kk of a slice it reads one value of B from
// shared memory and uses it for 8 multiply-adds, with 8 values of A that
// the 32 lanes of its warp share.
extern "C" __global__ void
matmul_reg1d(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
             unsigned m, unsigned n, unsigned k) {
    __shared__ float as[BM][BK];
    __shared__ float bs[BK][BN];
    const unsigned tiles_n = (n + BN - 1) / BN;
    const unsigned row0 = (blockIdx.x / tiles_n) * BM;
    const unsigned col0 = (blockIdx.x % tiles_n) * BN;
    const unsigned t = threadIdx.x;
    const unsigned trow = t / BN, tcol = t % BN;
    // The element of each slice this thread loads: A's (t / 8, t % 8),
    // B's (t / 64, t % 64).
    const unsigned ar = t / BK, ak = t % BK;
    const unsigned bk = t / BN, bc = t % BN;

    float acc[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) acc[i] = 0.0f;

    for (unsigned k0 = 0; k0 < k; k0 += BK) {
        as[ar][ak] = (row0 + ar < m && k0 + ak < k) ? a[(size_t)(row0 + ar) * k + k0 + ak] : 0.0f;
        bs[bk][bc] = (k0 + bk < k && col0 + bc < n) ? b[(size_t)(k0 + bk) * n + col0 + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float bv = bs[kk][tcol];
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] = fmaf(as[trow * TM + i][kk], bv, acc[i]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const unsigned gr = row0 + trow * TM + i, gc = col0 + tcol;
        if (gr < m && gc < n) c[(size_t)gr * n + gc] = acc[i];
    }
}
// ANCHOR_END: kernel
