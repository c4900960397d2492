/*+++
problem = "scan_f32"
sizes = ["2^20", "2^26"]
# Reduce-then-scan in three launches, timed as one unit, over tiles of
# 4096 elements (256 threads of 4 float4). At most eight blocks per SM;
# block b owns the run of whole tiles b * T / G to (b + 1) * T / G (T
# tiles, G blocks). Launch 1 sums each block's tiles into partials[b];
# launch 2 (one block) scans the partials; launch 3 reads the tiles again
# and scans them, starting from the sum of the blocks before.
[scratch]
partials = "grid0"
[[launch]]
kernel = "reduce_runs"
grid = "min(ceil_div(n, 4096), sms * 8)"
block = 256
args = ["x", "partials", "n"]
[[launch]]
kernel = "scan_partials"
grid = 1
block = 1024
args = ["partials", "grid0"]
[[launch]]
kernel = "scan_runs"
grid = "grid0"
block = 256
args = ["x", "y", "partials", "n"]
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

// Tiles first to last (exclusive) of this block.
__device__ __forceinline__ void my_tiles(unsigned int n, unsigned int& first, unsigned int& last) {
    const unsigned long long tiles = (n + TILE - 1) / TILE;
    first = static_cast<unsigned int>(tiles * blockIdx.x / gridDim.x);
    last = static_cast<unsigned int>(tiles * (blockIdx.x + 1) / gridDim.x);
}

// Launch 1: the sum of this block's tiles. It reads x and writes one float.
// ANCHOR: reduce
extern "C" __global__ void reduce_runs(const float* __restrict__ x, float* __restrict__ partials,
                                       unsigned int n) {
    __shared__ float run_total[WARPS];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int first, last;
    my_tiles(n, first, last);
    float sum = 0.0f;
    for (unsigned int t = first; t < last; ++t) {
        float4 v[ITEMS];
        load_run(x, t * TILE + warp * RUN, n, lane, v);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
#pragma unroll
    for (unsigned int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    float before, total;
    tile_offsets(run_total, sum, lane, warp, before, total);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}
// ANCHOR_END: reduce

// Launch 2: one block of 1024 threads scans the partials in place.
extern "C" __global__ void scan_partials(float* partials, unsigned int count) {
    __shared__ float warp_sum[32];
    const unsigned int t = threadIdx.x, lane = t % 32, warp = t / 32;
    float carry = 0.0f;
    for (unsigned int start = 0; start < count; start += 1024) {
        float v = start + t < count ? partials[start + t] : 0.0f;
#pragma unroll
        for (unsigned int d = 1; d < 32; d *= 2) {
            const float up = __shfl_up_sync(0xffffffffu, v, d);
            if (lane >= d) v += up;
        }
        if (lane == 31) warp_sum[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float w = warp_sum[lane];
#pragma unroll
            for (unsigned int d = 1; d < 32; d *= 2) {
                const float up = __shfl_up_sync(0xffffffffu, w, d);
                if (lane >= d) w += up;
            }
            warp_sum[lane] = w;
        }
        __syncthreads();
        if (warp > 0) v += warp_sum[warp - 1];
        if (start + t < count) partials[start + t] = carry + v;
        carry += warp_sum[31];
        __syncthreads();
    }
}

// Launch 3: the block reads its tiles again and scans them, starting from
// the sum of every block before its own. It reads x and writes y once.
// ANCHOR: scan
extern "C" __global__ void scan_runs(const float* __restrict__ x, float* __restrict__ y,
                                     const float* __restrict__ partials, unsigned int n) {
    __shared__ float run_total[2][WARPS];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int first, last;
    my_tiles(n, first, last);
    float carry = blockIdx.x > 0 ? partials[blockIdx.x - 1] : 0.0f;
    for (unsigned int t = first; t < last; ++t) {
        const unsigned int run = t * TILE + warp * RUN;
        float4 v[ITEMS];
        load_run(x, run, n, lane, v);
        const float mine = scan_run(v, lane);
        float before, total;
        tile_offsets(run_total[t % 2], mine, lane, warp, before, total);
        store_run(y, run, n, lane, v, carry + before);
        carry += total;
    }
}
// ANCHOR_END: scan
