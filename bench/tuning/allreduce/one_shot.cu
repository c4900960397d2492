// One-shot all-reduce over peer-to-peer access (prepared for issue 11, not
// yet run: no machine with several GPUs has been lent).
//
// Every GPU runs this kernel on its own stream. `peers` holds the device
// pointers of all `ranks` input buffers (its own included), readable here
// because the host enabled peer access between every pair of GPUs; the
// host makes each GPU's stream wait on events recorded after every rank's
// input was written, so no input changes while it is read and no in-kernel
// barrier across GPUs is needed. Each GPU reads every input over NVLink and
// writes the whole sum into its own `out`: ranks x n reads per GPU, the
// fewest steps and the most traffic, which is why it wins for small
// messages (latency) and loses for large ones (bandwidth).
#define MAX_RANKS 8

struct Peers {
    const float4* in[MAX_RANKS];
};

extern "C" __global__ void allreduce_one_shot(Peers peers, unsigned int ranks, float4* __restrict__ out,
                                              unsigned long long n4) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += stride) {
        float4 acc = peers.in[0][i];
        for (unsigned int r = 1; r < ranks; ++r) {
            float4 v = peers.in[r][i];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
        out[i] = acc;
    }
}
