// The tuned single-pass scan: a tile of THREADS threads of ITEMS float4
// (vec_tile.cuh), its total published and the tiles before it looked back
// at by warp 0, 32 at a time (lookback.cuh). The including file defines
// THREADS and ITEMS (or sweeps one of them).

#include "lookback.cuh"
#include "vec_tile.cuh"

// ANCHOR: kernel
extern "C" __global__ void __launch_bounds__(THREADS)
    scan_lookback_vec(const float* __restrict__ x, float* __restrict__ y, unsigned int n,
                      unsigned int* counter, unsigned long long* status) {
    __shared__ unsigned int tile_s;
    __shared__ float run_total[WARPS];
    __shared__ float tile_offset;
    if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);  // tiles in the order blocks start
    __syncthreads();
    const unsigned int t = tile_s, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned int run = t * VEC_TILE + warp * WARP_RUN;
    float4 v[ITEMS];
    load_run(x, run, n, lane, v);
    const float mine = scan_run(v, lane);
    float before, total;
    block_offsets(run_total, mine, lane, warp, before, total);
    if (warp == 0) {
        if (lane == 0) publish(status, t, t == 0 ? PREFIX : AGGREGATE, total);
        const float exclusive = t == 0 ? 0.0f : look_back_warp(status, t, lane);
        if (lane == 0) {
            if (t > 0) publish(status, t, PREFIX, exclusive + total);
            tile_offset = exclusive;
        }
    }
    __syncthreads();
    store_run(y, run, n, lane, v, tile_offset + before);
}
// ANCHOR_END: kernel

// The reset CUB's scan makes inside its call, made here inside the timed
// launches too: every tile's status word and the tile counter back to 0.
// One thread per tile; the number of tiles is computed as the scan's grid.
// ANCHOR: clear
extern "C" __global__ void clear_status(unsigned long long* status, unsigned int* counter,
                                        unsigned int n) {
    const unsigned int tiles = (n + VEC_TILE - 1) / VEC_TILE;
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < tiles) status[i] = 0ull;
    if (i == 0) *counter = 0u;
}
// ANCHOR_END: clear
