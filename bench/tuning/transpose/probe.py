#!/usr/bin/env python3
"""Issue 23's transpose goal (8192 x 8192 fp32 at >= 90% of the tuned copy):
which tile shape, vector width, block order and cache hint gets there?

Every variant and the book's copy_tuned (kernels/coalescing/copy_tuned.cu,
header stripped) are timed the same way in one process: L2 flushed by a
256 MiB memset, a 50 us spin so the launch is queued before it starts,
CUDA events around one launch, median of SAMPLES. Each variant's answer is
checked against cupy's transpose. Prints one JSON line per variant with
its GB/s and its ratio to the copy. Usage: python3 probe.py [SAMPLES]
"""
import json, re, statistics, sys, pathlib
import cupy as cp

samples = int(sys.argv[1]) if len(sys.argv) > 1 else 60
root = pathlib.Path(__file__).resolve().parents[3]
rows = cols = 8192
n = rows * cols

TEMPLATE = r'''
#define TILE %(tile)d
#define THREADS %(threads)d
#define VEC %(vec)d
#define COLMAJOR %(colmajor)d
#define PAD %(pad)d
#if %(hint)d
#define LD(p) __ldcs(p)
#define ST(p, v) __stcs(p, v)
#else
#define LD(p) (*(p))
#define ST(p, v) (*(p) = (v))
#endif
extern "C" __global__ void __launch_bounds__(THREADS) tr(const float* __restrict__ x, float* __restrict__ y,
                                                        unsigned int rows, unsigned int cols) {
    __shared__ float tile[TILE][TILE + PAD];
    const unsigned int tiles_across = cols / TILE, tiles_down = rows / TILE;
    unsigned int bx, by;
    if (COLMAJOR) { by = blockIdx.x %% tiles_down; bx = blockIdx.x / tiles_down; }
    else { bx = blockIdx.x %% tiles_across; by = blockIdx.x / tiles_across; }
    const unsigned int c0 = bx * TILE, r0 = by * TILE;
    constexpr unsigned int PER_ROW = TILE / VEC;          // vectors per tile row
    constexpr unsigned int ROWS_PER_PASS = THREADS / PER_ROW;
    const unsigned int tx = threadIdx.x %% PER_ROW, ty = threadIdx.x / PER_ROW;
#if VEC == 4
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        float4 v = LD(reinterpret_cast<const float4*>(x + (size_t)(r0 + j) * cols + c0) + tx);
        tile[j][4 * tx] = v.x; tile[j][4 * tx + 1] = v.y; tile[j][4 * tx + 2] = v.z; tile[j][4 * tx + 3] = v.w;
    }
    __syncthreads();
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        float4 v = make_float4(tile[4 * tx][j], tile[4 * tx + 1][j], tile[4 * tx + 2][j], tile[4 * tx + 3][j]);
        ST(reinterpret_cast<float4*>(y + (size_t)(c0 + j) * rows + r0) + tx, v);
    }
#elif VEC == 2
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        float2 v = LD(reinterpret_cast<const float2*>(x + (size_t)(r0 + j) * cols + c0) + tx);
        tile[j][2 * tx] = v.x; tile[j][2 * tx + 1] = v.y;
    }
    __syncthreads();
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS) {
        float2 v = make_float2(tile[2 * tx][j], tile[2 * tx + 1][j]);
        ST(reinterpret_cast<float2*>(y + (size_t)(c0 + j) * rows + r0) + tx, v);
    }
#else
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS)
        tile[j][tx] = LD(x + (size_t)(r0 + j) * cols + c0 + tx);
    __syncthreads();
#pragma unroll
    for (unsigned int j = ty; j < TILE; j += ROWS_PER_PASS)
        ST(y + (size_t)(c0 + j) * rows + r0 + tx, tile[tx][j]);
#endif
}
'''

variants = []
for tile in (32, 64):
    for vec in (1, 2, 4):
        for threads in (128, 256, 512):
            if threads > tile * tile // vec or (tile // vec) > threads:
                continue
            for colmajor in (0, 1):
                for hint in (0, 1):
                    variants.append(dict(tile=tile, vec=vec, threads=threads, colmajor=colmajor, hint=hint, pad=1))

spin = cp.RawModule(code=r'''extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64(); while (clock64() - t0 < cycles) {} }''').get_function("spin")
flush = cp.zeros(256 << 20, cp.uint8)
start, stop = cp.cuda.Event(), cp.cuda.Event()

def timed(launch):
    times = []
    for s in range(samples + 5):
        flush.fill(s & 0xFF)
        spin((1,), (1,), (cp.int64(100_000),))
        start.record(); launch(); stop.record(); stop.synchronize()
        if s >= 5:
            times.append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
    return statistics.median(times), min(times)

x = cp.random.default_rng(1).random((rows, cols), dtype=cp.float32)
y = cp.empty_like(x)
want = cp.ascontiguousarray(x.T)
copy_src = re.sub(r"/\*\+\+\+.*?\+\+\+\*/", "", (root / "kernels/coalescing/copy_tuned.cu").read_text(), flags=re.S)
copy = cp.RawModule(code=copy_src, options=("-arch=sm_90",)).get_function("copy_tuned")
copy_grid = max((n + 4 * 256 * 4 - 1) // (4 * 256 * 4), 1)
copy_us, copy_min = timed(lambda: copy((copy_grid,), (256,), (x, y, cp.uint32(n))))
copy_gbs = 2 * 4 * n / copy_us / 1e3
print(json.dumps({"variant": "copy_tuned", "median_us": round(copy_us, 2), "gbs": round(copy_gbs, 1)}), flush=True)
torch_like = None
for v in variants:
    k = cp.RawModule(code=TEMPLATE % v, options=("-arch=sm_90",)).get_function("tr")
    grid = (rows // v["tile"]) * (cols // v["tile"])
    y.fill(0)
    k((grid,), (v["threads"],), (x, y, cp.uint32(rows), cp.uint32(cols)))
    ok = bool(cp.array_equal(y, want))
    us, mn = timed(lambda: k((grid,), (v["threads"],), (x, y, cp.uint32(rows), cp.uint32(cols))))
    gbs = 2 * 4 * n / us / 1e3
    print(json.dumps({"variant": v, "ok": ok, "median_us": round(us, 2), "min_us": round(mn, 2),
                      "gbs": round(gbs, 1), "of_copy": round(gbs / copy_gbs, 4)}), flush=True)
