/*+++
problem = "sum_f32"
sizes = ["2^24", "2^28", "2^30"]
[[launch]]
kernel = "reduce_v"
grid = "GRID_EXPR"
block = BLOCK
args = ["input", "out", "n"]
+++*/
#define LOADS LOADS_N
#define BLOCKSZ BLOCK
__device__ __forceinline__ float4 load4(const float4* p) {
#if LOADKIND == 1
    return __ldcs(p);
#elif LOADKIND == 2
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
#elif LOADKIND == 3
    return __ldg(p);
#else
    return *p;
#endif
}
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
__device__ float block_sum(float v) {
    __shared__ float t[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) t[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) { v = lane < blockDim.x / 32 ? t[lane] : 0.0f; v = warp_sum(v); }
    return v;
}
extern "C" __global__ void __launch_bounds__(BLOCKSZ) reduce_v(const float* __restrict__ x, float* __restrict__ out, unsigned n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    unsigned n4 = n / 4;
    float acc[LOADS] = {};
#if CHUNKED
    // Each block owns a contiguous range of whole tiles.
    unsigned tile = BLOCKSZ * LOADS;
    unsigned tiles = n4 / tile;
    unsigned per = tiles / gridDim.x, extra = tiles % gridDim.x;
    unsigned first = blockIdx.x * per + min(blockIdx.x, extra);
    unsigned count = per + (blockIdx.x < extra ? 1 : 0);
    for (unsigned t = first; t < first + count; ++t) {
        unsigned base = t * tile + threadIdx.x;
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = load4(x4 + base + k * BLOCKSZ);
#pragma unroll
        for (int k = 0; k < LOADS; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = tiles * tile + blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = load4(x4 + i);
        acc[0] += (v.x + v.y) + (v.z + v.w);
    }
#elif WARPTILE
    unsigned lane = threadIdx.x % 32;
    unsigned gwarp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned nwarps = gridDim.x * blockDim.x / 32;
    unsigned span = 32 * LOADS;
    unsigned full = n4 / span;
    for (unsigned w = gwarp; w < full; w += nwarps) {
        const float4* p = x4 + w * span + lane;
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = load4(p + 32 * k);
#pragma unroll
        for (int k = 0; k < LOADS; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = full * span + blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = load4(x4 + i);
        acc[0] += (v.x + v.y) + (v.z + v.w);
    }
#else
    unsigned stride = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (LOADS - 1) * stride < n4; i += LOADS * stride) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = load4(x4 + i + k * stride);
#pragma unroll
        for (int k = 0; k < LOADS; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < n4; i += stride) { float4 v = load4(x4 + i); acc[0] += (v.x + v.y) + (v.z + v.w); }
#endif
    unsigned tail = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) acc[0] += x[tail];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LOADS; ++k) s += acc[k];
    float total = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(out, total);
}
