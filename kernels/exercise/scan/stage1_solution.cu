/*+++
problem = "scan_f32"
sizes = ["2^20", "2^26"]
# Scan-then-propagate in three launches, timed as one unit: tiles of 1024
# elements, one block of 1024 threads each; then one block scans the tile
# totals; then every tile but the first adds the total of the tiles before
# it.
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

// Launch 1: each block scans its tile in shared memory by Hillis and
// Steele's doubling steps (distance 1, 2, 4, ..., 512), reading one buffer
// and writing the other, with a barrier after every step.
// ANCHOR: tile
extern "C" __global__ void scan_tiles(const float* __restrict__ x, float* __restrict__ y,
                                      float* __restrict__ sums, unsigned int n) {
    __shared__ float buf[2][TILE];
    const unsigned int t = threadIdx.x, i = blockIdx.x * TILE + t;
    buf[0][t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    unsigned int in = 0;
    for (unsigned int d = 1; d < TILE; d *= 2) {
        float v = buf[in][t];
        if (t >= d) v += buf[in][t - d];
        buf[1 - in][t] = v;
        in = 1 - in;
        __syncthreads();
    }
    const float v = buf[in][t];
    if (i < n) y[i] = v;
    if (t == TILE - 1) sums[blockIdx.x] = v;
}
// ANCHOR_END: tile

// Launch 2: one block scans the tile totals in place, 1024 at a time, with
// the same doubling steps and a running carry.
extern "C" __global__ void scan_sums(float* sums, unsigned int count) {
    __shared__ float buf[2][TILE];
    const unsigned int t = threadIdx.x;
    float carry = 0.0f;
    for (unsigned int start = 0; start < count; start += TILE) {
        buf[0][t] = start + t < count ? sums[start + t] : 0.0f;
        __syncthreads();
        unsigned int in = 0;
        for (unsigned int d = 1; d < TILE; d *= 2) {
            float v = buf[in][t];
            if (t >= d) v += buf[in][t - d];
            buf[1 - in][t] = v;
            in = 1 - in;
            __syncthreads();
        }
        if (start + t < count) sums[start + t] = carry + buf[in][t];
        carry += buf[in][TILE - 1];
        __syncthreads();  // the next chunk overwrites buf[0]
    }
}

// Launch 3: tile b adds the sum of tiles 0 to b - 1.
extern "C" __global__ void add_offsets(float* y, const float* sums, unsigned int n) {
    const unsigned int b = blockIdx.x, i = b * TILE + threadIdx.x;
    if (b > 0 && i < n) y[i] += sums[b - 1];
}
