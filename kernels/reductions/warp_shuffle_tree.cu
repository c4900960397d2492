/*+++
problem = "sum_f32"
sizes = ["2^20", "2^22", "2^24", "2^26", "2^28"]
[[launch]]
kernel = "reduce_warp_shuffle"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// stride_tree.cu with its last six rounds moved into registers. The shared
// memory tree stops once 64 values are left; warp 0 adds those pairwise and
// finishes with shuffles, which need neither shared memory nor barriers.
// blockDim.x must be a power of two and at least 64.
extern "C" __global__ void reduce_warp_shuffle(const float* x, float* out,
                                               unsigned int n) {
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    // Shared-memory rounds while more than one warp has work.
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }

    // The last 64 values: one warp, registers only. All 32 lanes take part
    // in every shuffle, so the full mask is correct.
    if (tid < 32) {
        float v = s[tid] + s[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) {
            v += __shfl_down_sync(0xffffffffu, v, offset);
        }
        if (tid == 0) {
            atomicAdd(out, v);
        }
    }
    // ANCHOR_END: fold
}
