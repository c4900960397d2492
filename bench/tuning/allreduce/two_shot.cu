// Two-shot all-reduce over peer-to-peer access (prepared for issue 11, not
// yet run). Rank `rank` owns chunk `rank` of the n4 float4s (chunks of
// ceil(n4 / ranks)):
//   1. reduce-scatter: it sums its chunk over every rank's input and
//      writes the sum into its own output's chunk;
//   2. all-gather: it copies every other rank's reduced chunk from that
//      rank's output into its own.
// Between the two launches the host makes every stream wait on events
// recorded after every rank's first launch, the barrier across GPUs. Each
// GPU reads 2 (ranks - 1) / ranks of a message over NVLink, the traffic a
// ring needs, in two steps instead of 2 (ranks - 1).
#define MAX_RANKS 8

struct Peers {
    const float4* in[MAX_RANKS];
    float4* out[MAX_RANKS];
};

__device__ void chunk_of(unsigned int r, unsigned int ranks, unsigned long long n4,
                         unsigned long long* begin, unsigned long long* end) {
    unsigned long long size = (n4 + ranks - 1) / ranks;
    *begin = min(n4, (unsigned long long)r * size);
    *end = min(n4, *begin + size);
}

extern "C" __global__ void allreduce_reduce_scatter(Peers peers, unsigned int ranks, unsigned int rank,
                                                    unsigned long long n4) {
    unsigned long long begin, end;
    chunk_of(rank, ranks, n4, &begin, &end);
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = begin + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < end;
         i += stride) {
        float4 acc = peers.in[0][i];
        for (unsigned int r = 1; r < ranks; ++r) {
            float4 v = peers.in[r][i];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
        peers.out[rank][i] = acc;
    }
}

extern "C" __global__ void allreduce_all_gather(Peers peers, unsigned int ranks, unsigned int rank,
                                                unsigned long long n4) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned int r = 0; r < ranks; ++r) {
        if (r == rank) {
            continue;
        }
        unsigned long long begin, end;
        chunk_of(r, ranks, n4, &begin, &end);
        for (unsigned long long i = begin + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < end;
             i += stride) {
            peers.out[rank][i] = peers.out[r][i];
        }
    }
}
