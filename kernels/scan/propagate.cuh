// Launches 2 and 3 of the book's scan-then-propagate scans
// (hillis_steele.cu, blelloch.cu, warp_scan.cu): launch 1, the kernel of
// each file, scans every tile of TILE elements on its own, writes the
// tile's scan to y and the tile's total to sums[tile]. Launch 2 scans the
// totals in place (one block), so sums[b] becomes the sum of tiles 0 to b.
// Launch 3 adds sums[b - 1] to every element of tile b. The three files
// differ only in launch 1.

#define TILE 1024

// The inclusive scan of v over the warp, with shuffles: after the step
// with distance d, lane l holds the sum of lanes l - 2d + 1 to l.
__device__ __forceinline__ float warp_inclusive(float v, unsigned int lane) {
#pragma unroll
    for (unsigned int d = 1; d < 32; d *= 2) {
        const float up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    return v;
}

// Launch 2: one block of 1024 threads scans the `count` tile totals in
// place, 1024 at a time, carrying the running total from one chunk to
// the next.
// ANCHOR: sums
extern "C" __global__ void scan_tile_sums(float* sums, unsigned int count) {
    __shared__ float warp_total[32];
    __shared__ float carry_s;
    const unsigned int t = threadIdx.x, lane = t % 32, warp = t / 32;
    float carry = 0.0f;
    for (unsigned int start = 0; start < count; start += 1024) {
        const unsigned int i = start + t;
        float v = warp_inclusive(i < count ? sums[i] : 0.0f, lane);
        if (lane == 31) warp_total[warp] = v;
        __syncthreads();
        if (warp == 0) {
            const float w = warp_inclusive(warp_total[lane], lane);
            warp_total[lane] = w;
            if (lane == 31) carry_s = carry + w;
        }
        __syncthreads();
        if (warp > 0) v += warp_total[warp - 1];
        if (i < count) sums[i] = carry + v;
        carry = carry_s;
        __syncthreads();  // warp_total is rewritten by the next chunk
    }
}
// ANCHOR_END: sums

// Launch 3: one block per tile, one element per thread; tile 0 already
// holds its final values.
// ANCHOR: add
extern "C" __global__ void add_tile_offsets(float* y, const float* sums, unsigned int n) {
    const unsigned int b = blockIdx.x, i = b * TILE + threadIdx.x;
    if (b > 0 && i < n) y[i] += sums[b - 1];
}
// ANCHOR_END: add
