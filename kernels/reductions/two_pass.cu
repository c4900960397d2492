/*+++
problem = "sum_f32"
sizes = ["2^20", "2^22", "2^24", "2^26", "2^28"]
# Pass 1 is an element-wise grid-stride loop, four blocks of 512 threads
# per SM (the loop fast_reduce.cu had before it read warp tiles); each
# block writes its partial to its own slot instead of adding it to `out`.
# Pass 2 is one block that sums the partials. Both launches are timed
# together.
[scratch]
partials = "grid0"
[[launch]]
kernel = "partial_sums"
grid = "min(ceil_div(n, 2048), sms * 4)"
block = 512
args = ["input", "partials", "n"]
[[launch]]
kernel = "final_sum"
grid = 1
block = 512
args = ["partials", "out", "grid0"]
+++*/

#define LOADS_IN_FLIGHT 4

// Lane 0 ends with the sum of v over the warp.
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

    v = 0.0f;
    if (warp == 0) {
        unsigned int warps = blockDim.x / 32;
        v = lane < warps ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

// Pass 1: an element-wise grid-stride loop with LOADS_IN_FLIGHT float4
// loads per trip, then the block reduction of fast_reduce.cu.
extern "C" __global__ void partial_sums(const float* __restrict__ x,
                                        float* __restrict__ partials,
                                        unsigned int n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    unsigned int n4 = n / 4;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    float acc[LOADS_IN_FLIGHT] = {};
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        float4 v[LOADS_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; ++k) {
            v[k] = x4[i + k * stride];
        }
#pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; ++k) {
            acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
    }
    for (; i < n4; i += stride) {
        float4 v = x4[i];
        acc[0] += (v.x + v.y) + (v.z + v.w);
    }
    // The last n % 4 elements, one per thread of the first block, tested
    // against the count of the tail so that no index sum can wrap.
    unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    if (first < n - 4 * n4) {
        acc[0] += x[4 * n4 + first];
    }

    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; ++k) {
        sum += acc[k];
    }

    // ANCHOR: write_partial
    // One slot per block: no two blocks touch the same address, no atomic.
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = total;
    }
    // ANCHOR_END: write_partial
}

// ANCHOR: final_sum
// Pass 2, one block: the same block reduction over the `count` partials.
// The kernel boundary is the grid-wide barrier: every partial is written
// before this launch starts.
extern "C" __global__ void final_sum(const float* __restrict__ partials,
                                     float* __restrict__ out,
                                     unsigned int count) {
    float sum = 0.0f;
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) {
        sum += partials[i];
    }
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        *out = total;
    }
}
// ANCHOR_END: final_sum
