// Two-shot all-reduce over peer-to-peer access. Not a book example (the
// example format is one GPU's): `cuda-runner allreduce` compiles it with
// NVRTC for each GPU and launches it on every rank (runner/src/allreduce/ours.rs).
//
// Rank `rank` owns the elements [min(n, rank c), min(n, (rank + 1) c)) of
// the message, `c` a multiple of four chosen by the host
// (cuda_measured_core::allreduce::chunks):
//   1. reduce-scatter: it sums its chunk over every rank's input and
//      writes the sum into its own output's chunk;
//   2. all-gather: it copies every other rank's reduced chunk from that
//      rank's output into its own.
// Between the two launches the host makes every stream wait on events
// recorded after every rank's first launch, the barrier across GPUs (and
// one before and after the call, as the one-shot has). Each GPU reads
// 2 (ranks - 1) / ranks of a message over NVLink, the traffic a ring
// needs, in two steps instead of 2 (ranks - 1). With one rank the
// reduce-scatter is a copy of the whole message and the all-gather has
// nothing to do.
#define MAX_RANKS 8

struct Peers {
    const float* in[MAX_RANKS];
    float* out[MAX_RANKS];
};

__device__ void chunk_of(unsigned int r, unsigned long long n, unsigned long long chunk,
                         unsigned long long* begin, unsigned long long* end) {
    *begin = min(n, (unsigned long long)r * chunk);
    *end = min(n, *begin + chunk);
}

// ANCHOR: reduce_scatter
extern "C" __global__ void allreduce_reduce_scatter(Peers peers, unsigned int ranks, unsigned int rank,
                                                    unsigned long long n, unsigned long long chunk) {
    unsigned long long begin, end;
    chunk_of(rank, n, chunk, &begin, &end);
    // begin is a multiple of 4 (or the range is empty): float4s first,
    // then the last (end - begin) % 4 floats one per thread.
    unsigned long long vec_end = begin + (end - begin) / 4 * 4;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    float* own = peers.out[rank];
    for (unsigned long long i = begin / 4 + first; i < vec_end / 4; i += stride) {
        float4 acc = reinterpret_cast<const float4*>(peers.in[0])[i];
        for (unsigned int r = 1; r < ranks; ++r) {
            float4 v = reinterpret_cast<const float4*>(peers.in[r])[i];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
        reinterpret_cast<float4*>(own)[i] = acc;
    }
    unsigned long long t = vec_end + first;
    if (t < end) {
        float acc = peers.in[0][t];
        for (unsigned int r = 1; r < ranks; ++r) {
            acc += peers.in[r][t];
        }
        own[t] = acc;
    }
}

// ANCHOR_END: reduce_scatter

// ANCHOR: all_gather
extern "C" __global__ void allreduce_all_gather(Peers peers, unsigned int ranks, unsigned int rank,
                                                unsigned long long n, unsigned long long chunk) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    float* own = peers.out[rank];
    for (unsigned int r = 0; r < ranks; ++r) {
        if (r == rank) {
            continue;
        }
        unsigned long long begin, end;
        chunk_of(r, n, chunk, &begin, &end);
        unsigned long long vec_end = begin + (end - begin) / 4 * 4;
        const float* theirs = peers.out[r];
        for (unsigned long long i = begin / 4 + first; i < vec_end / 4; i += stride) {
            reinterpret_cast<float4*>(own)[i] = reinterpret_cast<const float4*>(theirs)[i];
        }
        unsigned long long t = vec_end + first;
        if (t < end) {
            own[t] = theirs[t];
        }
    }
}
// ANCHOR_END: all_gather
