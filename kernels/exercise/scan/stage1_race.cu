/*+++
problem = "scan_f32"
sizes = ["2^20"]
# stage1_solution.cu with one buffer instead of two: a race, which the
# exact checks at the edge sizes are expected to catch.
expect = "wrong"
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

// The doubling steps in place: thread t adds s[t - d] into s[t]. But
// thread t - d may already have added into s[t - d] in this very step,
// so t reads the new value or the old one, depending on which warp ran
// first: a race between the read and the write of one step.
// ANCHOR: tile
extern "C" __global__ void scan_tiles(const float* __restrict__ x, float* __restrict__ y,
                                      float* __restrict__ sums, unsigned int n) {
    __shared__ float s[TILE];
    const unsigned int t = threadIdx.x, i = blockIdx.x * TILE + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int d = 1; d < TILE; d *= 2) {
        if (t >= d) s[t] += s[t - d];
        __syncthreads();
    }
    const float v = s[t];
    if (i < n) y[i] = v;
    if (t == TILE - 1) sums[blockIdx.x] = v;
}
// ANCHOR_END: tile

// Launches 2 and 3 as in stage1_solution.cu.
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
        __syncthreads();
    }
}

extern "C" __global__ void add_offsets(float* y, const float* sums, unsigned int n) {
    const unsigned int b = blockIdx.x, i = b * TILE + threadIdx.x;
    if (b > 0 && i < n) y[i] += sums[b - 1];
}
