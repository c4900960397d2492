/*+++
problem = "sum_f32"
sizes = ["2^20", "2^22", "2^24", "2^26", "2^28"]
[[launch]]
kernel = "reduce_interleaved"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// A block of 256 threads sums 256 elements with a tree in shared memory, then
// adds its total to `out` with one atomic. This is the textbook form: the
// thread that writes in round `stride` is the one whose index is a multiple
// of 2 * stride. blockDim.x must be a power of two.
extern "C" __global__ void reduce_interleaved(const float* x, float* out,
                                              unsigned int n) {
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    // ANCHOR: load
    // Threads past the end store the identity instead of returning early:
    // the tree reads every slot, and every thread must reach the barriers.
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    // ANCHOR_END: load

    // ANCHOR: fold
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (tid == 0) {
        atomicAdd(out, s[0]);
    }
}
