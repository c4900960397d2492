/*+++
problem = "scan_f32"
sizes = ["2^20", "2^26"]
# One pass: one block of 256 threads per tile of 4096 elements (4 float4
# a thread). `counter` hands out tile numbers in the order blocks start;
# `status` is one 64-bit word per tile (two u32). Both are set to 0 by the
# runner before every run, outside the timed region.
[scratch]
counter = { len = 1, elem = "u32", init = "zeroed" }
status = { len = "2 * grid0", elem = "u32", init = "zeroed" }
[[launch]]
kernel = "scan_lookback"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n", "counter", "status"]
+++*/

#define THREADS 256
#define ITEMS 4                    // float4 loads a thread
#define WARPS (THREADS / 32)
#define RUN (128 * ITEMS)          // elements a warp owns in a tile
#define TILE (THREADS * 4 * ITEMS) // 4096

// Warp w of a tile owns the RUN elements from `run` on; its k-th load
// reads 32 neighbouring float4, lane l the float4 32k + l. Past n: 0.
__device__ __forceinline__ void load_run(const float* __restrict__ x, unsigned int run, unsigned int n,
                                         unsigned int lane, float4 (&v)[ITEMS]) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned int i = run + 4 * (32 * k + lane);
        if (i + 3 < n) {
            v[k] = *reinterpret_cast<const float4*>(x + i);
        } else {
            v[k] = make_float4(i < n ? x[i] : 0.0f, i + 1 < n ? x[i + 1] : 0.0f,
                               i + 2 < n ? x[i + 2] : 0.0f, 0.0f);
        }
    }
}

__device__ __forceinline__ void store_run(float* __restrict__ y, unsigned int run, unsigned int n,
                                          unsigned int lane, const float4 (&v)[ITEMS], float offset) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned int i = run + 4 * (32 * k + lane);
        const float4 o = make_float4(v[k].x + offset, v[k].y + offset, v[k].z + offset, v[k].w + offset);
        if (i + 3 < n) {
            *reinterpret_cast<float4*>(y + i) = o;
        } else {
            if (i < n) y[i] = o.x;
            if (i + 1 < n) y[i + 1] = o.y;
            if (i + 2 < n) y[i + 2] = o.z;
        }
    }
}

// Turns v into the warp's inclusive scan of its run and returns the run's
// total: each thread scans its float4, the warp scans the 32 float4
// totals of each load with shuffles, and a carry runs from load to load.
__device__ __forceinline__ float scan_run(float4 (&v)[ITEMS], unsigned int lane) {
    float carry = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        v[k].y += v[k].x;
        v[k].z += v[k].y;
        v[k].w += v[k].z;
        float s = v[k].w;
#pragma unroll
        for (unsigned int d = 1; d < 32; d *= 2) {
            const float up = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += up;
        }
        const float up = __shfl_up_sync(0xffffffffu, s, 1);
        const float before = (lane == 0 ? 0.0f : up) + carry;
        v[k].x += before;
        v[k].y += before;
        v[k].z += before;
        v[k].w += before;
        carry += __shfl_sync(0xffffffffu, s, 31);
    }
    return carry;
}

// Every thread gets the sum of the runs of the warps before its own
// (`before`) and of the whole tile (`total`); `run_total` is WARPS floats
// of shared memory, which the caller must not write again before another
// barrier.
__device__ __forceinline__ void tile_offsets(float* run_total, float mine, unsigned int lane,
                                             unsigned int warp, float& before, float& total) {
    if (lane == 0) run_total[warp] = mine;
    __syncthreads();
    before = 0.0f;
    total = 0.0f;
#pragma unroll
    for (unsigned int w = 0; w < WARPS; ++w) {
        const float s = run_total[w];
        if (w < warp) before += s;
        total += s;
    }
}

// A tile's status word: what it has published in the high 32 bits, the
// float it published in the low 32. One 64-bit store writes both and one
// load reads both.
#define NOTHING 0u
#define AGGREGATE 1u  // the sum of the tile alone
#define PREFIX 2u     // the sum of the tiles up to and including it

__device__ __forceinline__ void publish(unsigned long long* status, unsigned int t, unsigned int what,
                                        float value) {
    *reinterpret_cast<volatile unsigned long long*>(status + t) =
        (static_cast<unsigned long long>(what) << 32) | __float_as_uint(value);
}

// The sum of the tiles before tile t, looked back at by a whole warp, 32
// tiles at a time: lane l reads tile window - l; once none of the 32 says
// NOTHING, the lanes up to the first PREFIX (the nearest) are added up;
// without a PREFIX all 32 aggregates are, and the window moves back.
// ANCHOR: lookback
__device__ float look_back(const unsigned long long* status, unsigned int t, unsigned int lane) {
    float exclusive = 0.0f;
    for (int window = static_cast<int>(t) - 1;; window -= 32) {
        const int p = window - static_cast<int>(lane);
        unsigned long long word;
        do {
            word = p >= 0 ? *reinterpret_cast<const volatile unsigned long long*>(status + p)
                          : static_cast<unsigned long long>(PREFIX) << 32;  // before tile 0: 0
        } while (__any_sync(0xffffffffu, (word >> 32) == NOTHING));
        const unsigned int prefixes = __ballot_sync(0xffffffffu, (word >> 32) == PREFIX);
        const unsigned int upto = prefixes ? (prefixes ^ (prefixes - 1)) : 0xffffffffu;
        float v = (upto >> lane) & 1u ? __uint_as_float(static_cast<unsigned int>(word)) : 0.0f;
#pragma unroll
        for (unsigned int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
        exclusive += v;
        if (prefixes) return exclusive;
    }
}
// ANCHOR_END: lookback

// ANCHOR: kernel
extern "C" __global__ void scan_lookback(const float* __restrict__ x, float* __restrict__ y,
                                         unsigned int n, unsigned int* counter,
                                         unsigned long long* status) {
    __shared__ unsigned int tile_s;
    __shared__ float run_total[WARPS];
    __shared__ float tile_offset;
    // Tile numbers in the order blocks start: every tile before this one
    // belongs to a block that has started, so waiting on it cannot hang.
    if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned int t = tile_s, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned int run = t * TILE + warp * RUN;
    float4 v[ITEMS];
    load_run(x, run, n, lane, v);
    const float mine = scan_run(v, lane);
    float before, total;
    tile_offsets(run_total, mine, lane, warp, before, total);
    if (warp == 0) {
        if (lane == 0) publish(status, t, t == 0 ? PREFIX : AGGREGATE, total);
        const float exclusive = t == 0 ? 0.0f : look_back(status, t, lane);
        if (lane == 0) {
            if (t > 0) publish(status, t, PREFIX, exclusive + total);
            tile_offset = exclusive;
        }
    }
    __syncthreads();
    store_run(y, run, n, lane, v, tile_offset + before);
}
// ANCHOR_END: kernel
