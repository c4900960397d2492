/*+++
problem = "sum_f32"
sizes = ["2^22", "2^26"]
# As many 256-thread blocks as the SMs hold at once (8 per SM: 2048
# threads), and fewer for small inputs: 1056 blocks, so 1056 atomics, on
# the H200's 132 SMs. Each thread loops over the input. 2^26 is the size
# of stage 7, which starts from this kernel.
[[launch]]
kernel = "sum_grid_stride"
grid = "min(ceil_div(n, 1024), sms * 8)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// Lane 0 ends with the sum of v over the warp (stage 5).
__device__ float warp_total(float v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

extern "C" __global__ void sum_grid_stride(const float* __restrict__ x,
                                           float* __restrict__ out, unsigned int n) {
    extern __shared__ float warp_sums[];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;

    // ANCHOR: loop
    // cudaMalloc returns 256-byte aligned memory, so x can be read as
    // float4: one 16-byte load brings four elements. Thread k of the grid
    // reads float4s k, k + stride, k + 2 stride, ... and keeps a running
    // total in a register; neighbouring threads read neighbouring float4s.
    const float4* x4 = reinterpret_cast<const float4*>(x);
    unsigned int n4 = n / 4;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    for (unsigned int i = first; i < n4; i += stride) {
        float4 q = x4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    // The n % 4 elements after the last float4, one per thread of block 0.
    if (first < n - 4 * n4) {
        v += x[4 * n4 + first];
    }
    // ANCHOR_END: loop

    // Stage 5's block fold, then one atomic per block.
    v = warp_total(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned int warps = blockDim.x / 32;
        v = lane < warps ? warp_sums[lane] : 0.0f;
        v = warp_total(v);
        if (lane == 0) {
            atomicAdd(out, v);
        }
    }
}
