// The matmul chapter's fastest kernels, one template: C = A B, row-major
// float32, each block computing a BM x BN tile of C from BK-deep slices
// of A and B staged in shared memory (A's transposed), each thread a
// TM x TN tile of C in registers. STAGES = 1 loads a slice, waits, uses
// it and waits again; STAGES = 2 double-buffers: while the block
// multiplies one slice, its threads hold the next one's loads in
// registers and store them into the other buffer. The shared memory is
// dynamic, STAGES * BK * (BM + 4 + BN) floats: the launch passes
// sgemm_shared_bytes(...) of the same parameters.
//
// Blocks whose tile lies inside C, with K a multiple of BK and N of 4,
// load and store float4; the others (the edges of a matrix of any shape)
// one float at a time with guards, loads past the edges reading 0.

template <int BM, int BN, int BK, int TM, int TN>
struct SgemmShape {
    // ANCHOR: layout
    // A warp is 4 x 8 threads; lane l is thread (l / 8, l % 8) of its warp.
    // Each thread holds (TM / 4) x (TN / 4) sub-tiles of 4 x 4 elements of C,
    // 16 rows and 32 columns apart, so a warp covers WM x WN elements and
    // the 8 lanes of a quarter-warp read 8 neighbouring float4 of a row of
    // B's slice (128 contiguous bytes, one per bank group) and one float4
    // of A's (the same for all 8: a broadcast).
    static constexpr int WM = 4 * TM, WN = 8 * TN;
    static constexpr int WARPS_N = BN / WN;
    static constexpr int THREADS = (BM / TM) * (BN / TN);
    // A's transposed slice is BK rows of BM floats, padded by 4 so that a
    // thread's 4 stores of one float4 of A (4 rows of the slice) fall in
    // different banks from its neighbour's.
    static constexpr int AP = BM + 4;
    // ANCHOR_END: layout
    static constexpr int A4 = BM * BK / 4 / THREADS;  // float4 of A per thread per slice
    static constexpr int B4 = BK * BN / 4 / THREADS;  // float4 of B per thread per slice
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 sub-tiles");
    static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is whole warp tiles");
    static_assert(THREADS % 32 == 0, "whole warps");
    static_assert(A4 >= 1 && A4 * 4 * THREADS == BM * BK, "A's slice is whole float4 per thread");
    static_assert(B4 >= 1 && B4 * 4 * THREADS == BK * BN, "B's slice is whole float4 per thread");
    static_assert(BK % 4 == 0, "slices are whole float4 of A's rows");
};

// Dynamic shared memory of one block, in bytes.
constexpr unsigned sgemm_shared_bytes(int bm, int bn, int bk, int stages) {
    return (unsigned)(stages * bk * (bm + 4 + bn) * 4);
}

template <int BM, int BN, int BK, int TM, int TN, int STAGES>
__device__ __forceinline__ void sgemm(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, unsigned m, unsigned n, unsigned k) {
    using S = SgemmShape<BM, BN, BK, TM, TN>;
    static_assert(STAGES == 1 || STAGES == 2, "one or two buffers");
    extern __shared__ float4 sgemm_smem[];
    float (*as)[BK][S::AP] = reinterpret_cast<float (*)[BK][S::AP]>(sgemm_smem);
    float (*bs)[BK][BN] = reinterpret_cast<float (*)[BK][BN]>(
        reinterpret_cast<float*>(sgemm_smem) + STAGES * BK * S::AP);

    const unsigned tiles_n = (n + BN - 1) / BN;
    const unsigned row0 = (blockIdx.x / tiles_n) * BM;
    const unsigned col0 = (blockIdx.x % tiles_n) * BN;
    const unsigned t = threadIdx.x;
    // ANCHOR: thread
    const unsigned warp = t / 32, lane = t % 32;
    const unsigned wm0 = (warp / S::WARPS_N) * S::WM + (lane / 8) * 4;  // first row of the thread's
    const unsigned wn0 = (warp % S::WARPS_N) * S::WN + (lane % 8) * 4;  // first column, in the tile
    // ANCHOR_END: thread
    const bool whole = row0 + BM <= m && col0 + BN <= n && k % BK == 0 && n % 4 == 0;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    // ANCHOR: multiply
    // One slice in buffer s: at each step kk, TM values of A and TN of B,
    // read as float4, feed TM x TN multiply-adds.
    auto multiply = [&](int s) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float fa[TM], fb[TN];
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) {
                const float4 v = *reinterpret_cast<const float4*>(&as[s][kk][wm0 + g * 16]);
                fa[4 * g] = v.x, fa[4 * g + 1] = v.y, fa[4 * g + 2] = v.z, fa[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int h = 0; h < TN / 4; ++h) {
                const float4 v = *reinterpret_cast<const float4*>(&bs[s][kk][wn0 + h * 32]);
                fb[4 * h] = v.x, fb[4 * h + 1] = v.y, fb[4 * h + 2] = v.z, fb[4 * h + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
        }
    };
    // ANCHOR_END: multiply

    if (whole) {
        // ANCHOR: load
        // Thread t's float4 of each slice: A's (row, k) = (idx / (BK / 4),
        // 4 (idx % (BK / 4))) and B's (k, column) = (idx / (BN / 4),
        // 4 (idx % (BN / 4))), idx = t, t + THREADS, ...
        const float* pa[S::A4];
        const float* pb[S::B4];
        unsigned ar[S::A4], aq[S::A4], bk[S::B4], bq[S::B4];
#pragma unroll
        for (int l = 0; l < S::A4; ++l) {
            const unsigned idx = t + l * S::THREADS;
            ar[l] = idx / (BK / 4), aq[l] = 4 * (idx % (BK / 4));
            pa[l] = a + (size_t)(row0 + ar[l]) * k + aq[l];
        }
#pragma unroll
        for (int l = 0; l < S::B4; ++l) {
            const unsigned idx = t + l * S::THREADS;
            bk[l] = idx / (BN / 4), bq[l] = 4 * (idx % (BN / 4));
            pb[l] = b + (size_t)bk[l] * n + col0 + bq[l];
        }
        float4 va[S::A4], vb[S::B4];
        // The loads of the slice at k0 into registers, and their stores
        // into buffer s (A's float4 down a column of its transposed slice).
        auto load = [&](unsigned k0) {
#pragma unroll
            for (int l = 0; l < S::A4; ++l) va[l] = *reinterpret_cast<const float4*>(pa[l] + k0);
#pragma unroll
            for (int l = 0; l < S::B4; ++l)
                vb[l] = *reinterpret_cast<const float4*>(pb[l] + (size_t)k0 * n);
        };
        auto store = [&](int s) {
#pragma unroll
            for (int l = 0; l < S::A4; ++l) {
                as[s][aq[l] + 0][ar[l]] = va[l].x;
                as[s][aq[l] + 1][ar[l]] = va[l].y;
                as[s][aq[l] + 2][ar[l]] = va[l].z;
                as[s][aq[l] + 3][ar[l]] = va[l].w;
            }
#pragma unroll
            for (int l = 0; l < S::B4; ++l) *reinterpret_cast<float4*>(&bs[s][bk[l]][bq[l]]) = vb[l];
        };
        // ANCHOR_END: load
        if (STAGES == 1) {
            for (unsigned k0 = 0; k0 < k; k0 += BK) {
                load(k0);
                store(0);
                __syncthreads();
                multiply(0);
                __syncthreads();
            }
        } else {
            // ANCHOR: pipeline
            // The first slice, then for each slice: issue the next one's
            // loads, multiply this one (the loads arrive meanwhile), store
            // the next one into the other buffer, and wait once. A buffer
            // is written only after the barrier that follows the last reads
            // of it, so one barrier a slice is enough.
            load(0);
            store(0);
            __syncthreads();
            int s = 0;
            for (unsigned k0 = 0; k0 < k; k0 += BK) {
                const bool next = k0 + BK < k;
                if (next) load(k0 + BK);
                multiply(s);
                if (next) store(s ^ 1);
                __syncthreads();
                s ^= 1;
            }
            // ANCHOR_END: pipeline
        }
    } else {
        for (unsigned k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
            for (int l = 0; l < BM * BK / S::THREADS; ++l) {
                const unsigned idx = t + l * S::THREADS;
                const unsigned r = idx / BK, kk = idx % BK;
                as[0][kk][r] = (row0 + r < m && k0 + kk < k) ? a[(size_t)(row0 + r) * k + k0 + kk] : 0.0f;
            }
#pragma unroll
            for (int l = 0; l < BK * BN / S::THREADS; ++l) {
                const unsigned idx = t + l * S::THREADS;
                const unsigned kb = idx / BN, cc = idx % BN;
                bs[0][kb][cc] = (k0 + kb < k && col0 + cc < n) ? b[(size_t)(k0 + kb) * n + col0 + cc] : 0.0f;
            }
            __syncthreads();
            multiply(0);
            __syncthreads();
        }
    }

    // Sub-tile (g, h) of the thread: rows wm0 + 16 g + i, columns
    // wn0 + 32 h + j, i and j from 0 to 3.
#pragma unroll
    for (int g = 0; g < TM / 4; ++g)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const unsigned gr = row0 + wm0 + g * 16 + i;
#pragma unroll
            for (int h = 0; h < TN / 4; ++h) {
                const unsigned gc = col0 + wn0 + h * 32;
                const float* v = &acc[4 * g + i][4 * h];
                if (whole) {
                    *reinterpret_cast<float4*>(&c[(size_t)gr * n + gc]) = make_float4(v[0], v[1], v[2], v[3]);
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        if (gr < m && gc + j < n) c[(size_t)gr * n + gc + j] = v[j];
                }
            }
        }
}
