/*+++
problem = "scan_f32"
sizes = ["2^20", "2^24", "2^28"]
# One block per tile of 4096 elements, in one pass. `counter` hands out
# tile numbers in the order blocks start; `flags` says, per tile, what it
# has published. Both are set to 0 before every run, outside the timed
# region; the published values need no reset, since nothing reads one
# before its flag is set.
[scratch]
counter = { len = 1, elem = "u32", init = "zeroed" }
flags = { len = "grid0", elem = "u32", init = "zeroed" }
aggregates = { len = "grid0", elem = "f32", init = "kept" }
prefixes = { len = "grid0", elem = "f32", init = "kept" }
[[launch]]
kernel = "scan_lookback"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n", "counter", "flags", "aggregates", "prefixes"]
+++*/

#define THREADS 256
#define PER_THREAD 16
#define WARPS (THREADS / 32)
#define TILE (THREADS * PER_THREAD)

// What a tile has published in flags[t].
#define NOTHING 0u
#define AGGREGATE 1u  // aggregates[t]: the sum of tile t alone
#define PREFIX 2u     // prefixes[t]: the sum of tiles 0 to t

// The inclusive scan of x in one pass over it (a decoupled look-back
// scan, Merrill and Garland 2016). Each block takes the next tile number
// from `counter`, so every tile before its own has started: waiting on
// them cannot deadlock, whatever order the hardware starts blocks in. A
// block scans its tile, publishes the tile's sum, then walks back over
// the tiles before it, adding their sums until it meets one that has
// published its inclusive prefix; then it publishes its own.
// ANCHOR: lookback
__device__ float exclusive_prefix(unsigned int t, float aggregate, volatile unsigned int* flags,
                                  volatile float* aggregates, volatile float* prefixes) {
    if (t == 0) {
        prefixes[0] = aggregate;
        __threadfence();  // the value before the flag that announces it
        flags[0] = PREFIX;
        return 0.0f;
    }
    aggregates[t] = aggregate;
    __threadfence();
    flags[t] = AGGREGATE;
    float exclusive = 0.0f;
    for (unsigned int p = t - 1;; --p) {
        unsigned int f;
        while ((f = flags[p]) == NOTHING) {
        }
        __threadfence();  // the flag before the value it announces
        if (f == PREFIX) {
            exclusive += prefixes[p];
            break;
        }
        exclusive += aggregates[p];
    }
    prefixes[t] = exclusive + aggregate;
    __threadfence();
    flags[t] = PREFIX;
    return exclusive;
}
// ANCHOR_END: lookback

extern "C" __global__ void scan_lookback(const float* __restrict__ x, float* __restrict__ y,
                                         unsigned int n, unsigned int* counter,
                                         unsigned int* flags, float* aggregates,
                                         float* prefixes) {
    __shared__ unsigned int tile_s;
    __shared__ float warp_offset[WARPS];
    __shared__ float tile_offset;
    if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned int t = tile_s;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // Warp w owns 512 consecutive elements of the tile, read 32 at a time
    // (128 contiguous bytes per load), and scans them with shuffles.
    const unsigned int start = t * TILE + warp * (32 * PER_THREAD) + lane;
    float v[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const unsigned int i = start + 32 * k;
        v[k] = i < n ? x[i] : 0.0f;
    }
    float carry = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const float b = __shfl_up_sync(0xffffffffu, v[k], d);
            if (lane >= d) v[k] += b;
        }
        v[k] += carry;
        carry = __shfl_sync(0xffffffffu, v[k], 31);
    }
    if (lane == 31) warp_offset[warp] = carry;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < WARPS; ++w) {
            const float s = warp_offset[w];
            warp_offset[w] = total;
            total += s;
        }
        tile_offset = exclusive_prefix(t, total, flags, aggregates, prefixes);
    }
    __syncthreads();
    const float offset = tile_offset + warp_offset[warp];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const unsigned int i = start + 32 * k;
        if (i < n) y[i] = v[k] + offset;
    }
}
