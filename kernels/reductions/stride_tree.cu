/*+++
problem = "sum_f32"
sizes = ["2^20", "2^22", "2^24", "2^26", "2^28"]
[[launch]]
kernel = "reduce_stride"
grid = "ceil_div(n, 256)"
block = 256
shared = "256 * 4"
args = ["input", "out", "n"]
+++*/

// The same tree as interleaved_tree.cu with the same loads, the same number
// of additions and the same atomic per block. Only the choice of which
// threads work in each round differs: the live threads are always a
// contiguous prefix 0 .. stride-1. blockDim.x must be a power of two.
extern "C" __global__ void reduce_stride(const float* x, float* out,
                                         unsigned int n) {
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;

    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();

    // ANCHOR: fold
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    // ANCHOR_END: fold

    if (tid == 0) {
        atomicAdd(out, s[0]);
    }
}
