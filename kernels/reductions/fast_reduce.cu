/*+++
problem = "sum_f32"
sizes = ["2^16", "2^18", "2^20", "2^22", "2^24", "2^26", "2^28", "2^30"]
# At most two 1024-thread blocks per SM (2048 threads, the SM's limit),
# rounded down to a power of two (256 blocks on 132 SMs) so that a
# power-of-two input splits into equal shares with no straggling warps.
# Up to 2^20 elements the grid is one block per 4096 elements, one thread
# per float4; but the main loop hands out whole warp tiles of 128 float4s,
# so a power-of-two input has four warps per tile: the first quarter of
# the warps read one tile each (four float4s per lane), the others read
# nothing and only join the block sum. At 2^20, blocks 0 to 63 of 256 read.
[[launch]]
kernel = "reduce_fast"
grid = "min(ceil_div(n, 4096), pow2_floor(sms * 2))"
block = 1024
args = ["input", "out", "n"]
+++*/

// Float4 loads in flight per thread per loop trip. Independent loads let one
// warp keep several 512-byte requests outstanding instead of waiting on each.
#define LOADS_IN_FLIGHT 4

// ANCHOR: block_sum
// After the loop, lane 0 holds the sum of v over the 32 lanes. Each step adds
// the value `offset` lanes higher, through registers.
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

// The sum of v over the block, valid in thread 0. blockDim.x must be a
// multiple of 32 (at most 1024), and every thread of the block must call it.
__device__ float block_sum(float v) {
    __shared__ float warp_totals[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;

    v = warp_sum(v);
    if (lane == 0) {
        warp_totals[warp] = v;
    }
    __syncthreads();

    // Warp 0 reads only the slots that were written and folds them.
    v = 0.0f;
    if (warp == 0) {
        unsigned int warps = blockDim.x / 32;
        v = lane < warps ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}
// ANCHOR_END: block_sum

// 1024 threads per block. __launch_bounds__(1024) promises the compiler
// blocks of at most 1024 threads, which caps each thread at 64 registers;
// it does not ask for two blocks per SM (that would be
// __launch_bounds__(1024, 2), a cap of 32) and does not change the launch.
extern "C" __global__ void __launch_bounds__(1024) reduce_fast(const float* __restrict__ x,
                                                               float* __restrict__ out,
                                                               unsigned int n) {
    // ANCHOR: grid_stride
    // Input from cudaMalloc is 256-byte aligned, so x can be read as float4.
    const float4* x4 = reinterpret_cast<const float4*>(x);
    unsigned int n4 = n / 4;

    // The input is cut into warp tiles of 32 x LOADS_IN_FLIGHT float4s
    // (2 KiB). A warp reads a whole tile: each load covers 512 contiguous
    // bytes, and its LOADS_IN_FLIGHT loads cover the tile. Warps step
    // through the tiles by the number of warps in the grid.
    const unsigned int tile = 32 * LOADS_IN_FLIGHT;
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned int warps = gridDim.x * blockDim.x / 32;
    unsigned int tiles = n4 / tile;

    // One accumulator per load in flight, so no addition waits on another.
    float acc[LOADS_IN_FLIGHT] = {};

    for (unsigned int t = warp; t < tiles; t += warps) {
        const float4* p = x4 + t * tile + lane;
        float4 v[LOADS_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; ++k) {
            v[k] = p[32 * k];
        }
#pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; ++k) {
            acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
    }
    // The float4s after the last whole tile, one per thread, grid-stride.
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = tiles * tile + blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x4[i];
        acc[0] += (v.x + v.y) + (v.z + v.w);
    }
    // The last n % 4 elements (at most 3), one per thread of the first block.
    // The test compares the thread's index with the count of the tail, so
    // no sum is formed that could wrap past 2^32 when n is close to it.
    unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    if (first < n - 4 * n4) {
        acc[0] += x[4 * n4 + first];
    }

    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; ++k) {
        sum += acc[k];
    }
    // ANCHOR_END: grid_stride

    // ANCHOR: combine
    // Every thread, in range or not, takes part: block_sum has a barrier.
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        atomicAdd(out, total);
    }
    // ANCHOR_END: combine
}
