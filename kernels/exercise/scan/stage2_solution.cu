/*+++
problem = "scan_f32"
sizes = ["2^20", "2^26"]
# stage1_solution.cu's three launches, timed as one unit, with the tiles
# scanned by warp shuffles: tiles of 1024 elements, one block of 1024
# threads each; one block scans the tile totals; every tile but the first
# adds the total of the tiles before it.
[scratch]
sums = "grid0"
[[launch]]
kernel = "scan_tiles"
grid = "ceil_div(n, 1024)"
block = 1024
args = ["x", "y", "sums", "n"]
[[launch]]
kernel = "scan_sums"
grid = 1
block = 1024
args = ["sums", "grid0"]
[[launch]]
kernel = "add_offsets"
grid = "grid0"
block = 1024
args = ["y", "sums", "n"]
+++*/

#define TILE 1024

// The inclusive scan of v over the warp: the doubling steps of Hillis and
// Steele, with each lane's partner read from a register by a shuffle.
__device__ __forceinline__ float warp_scan(float v, unsigned int lane) {
#pragma unroll
    for (unsigned int d = 1; d < 32; d *= 2) {
        const float up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    return v;
}

// The inclusive scan of v over the block of 1024 threads: each warp scans
// its 32 values, warp 0 scans the 32 warp totals, and each warp adds the
// total of the warps before it. `total` gets the block's sum.
__device__ __forceinline__ float block_scan(float v, float& total) {
    __shared__ float warp_sum[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_scan(v, lane);
    if (lane == 31) warp_sum[warp] = v;
    __syncthreads();
    if (warp == 0) warp_sum[lane] = warp_scan(warp_sum[lane], lane);
    __syncthreads();
    if (warp > 0) v += warp_sum[warp - 1];
    total = warp_sum[31];
    __syncthreads();  // a second call may write warp_sum again
    return v;
}

// ANCHOR: tile
extern "C" __global__ void scan_tiles(const float* __restrict__ x, float* __restrict__ y,
                                      float* __restrict__ sums, unsigned int n) {
    const unsigned int i = blockIdx.x * TILE + threadIdx.x;
    float total;
    const float v = block_scan(i < n ? x[i] : 0.0f, total);
    if (i < n) y[i] = v;
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}
// ANCHOR_END: tile

extern "C" __global__ void scan_sums(float* sums, unsigned int count) {
    const unsigned int t = threadIdx.x;
    float carry = 0.0f;
    for (unsigned int start = 0; start < count; start += TILE) {
        float total;
        const float v = block_scan(start + t < count ? sums[start + t] : 0.0f, total);
        if (start + t < count) sums[start + t] = carry + v;
        carry += total;
    }
}

extern "C" __global__ void add_offsets(float* y, const float* sums, unsigned int n) {
    const unsigned int b = blockIdx.x, i = b * TILE + threadIdx.x;
    if (b > 0 && i < n) y[i] += sums[b - 1];
}
