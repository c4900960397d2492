// One-shot all-reduce over peer-to-peer access. Not a book example (the
// example format is one GPU's): `cuda-runner allreduce` compiles it with
// NVRTC for each GPU and launches it on every rank (runner/src/allreduce/ours.rs).
//
// Every GPU runs this kernel on its own stream. `peers` holds the device
// pointers of all `ranks` input buffers (its own included), readable here
// because the host enabled peer access between every pair of distinct GPUs
// (with one GPU, the one pointer is its own). The host brackets each call
// with barriers across the ranks' streams (events), so no input changes
// while it is read and no in-kernel barrier across GPUs is needed. Each GPU
// reads every input over NVLink and writes the whole sum into its own
// `out`: ranks x n reads per GPU, the fewest steps and the most traffic,
// which is why it wins for small messages (latency) and loses for large
// ones (bandwidth).
//
// n floats: n / 4 float4s (buffers are 256-byte aligned), then the last
// n % 4 floats one per thread. The sum runs over ranks 0, 1, ... in order.
#define MAX_RANKS 8

struct Peers {
    const float* in[MAX_RANKS];
};

// ANCHOR: kernel
extern "C" __global__ void allreduce_one_shot(Peers peers, unsigned int ranks, float* __restrict__ out,
                                              unsigned long long n) {
    unsigned long long n4 = n / 4;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned long long i = first; i < n4; i += stride) {
        float4 acc = reinterpret_cast<const float4*>(peers.in[0])[i];
        for (unsigned int r = 1; r < ranks; ++r) {
            float4 v = reinterpret_cast<const float4*>(peers.in[r])[i];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
        reinterpret_cast<float4*>(out)[i] = acc;
    }
    unsigned long long t = 4 * n4 + first;
    if (t < n) {
        float acc = peers.in[0][t];
        for (unsigned int r = 1; r < ranks; ++r) {
            acc += peers.in[r][t];
        }
        out[t] = acc;
    }
}
// ANCHOR_END: kernel
