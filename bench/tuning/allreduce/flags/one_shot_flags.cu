// One-shot all-reduce whose ranks meet inside the kernel, not through the
// host: a probe for issue 11, not one of the book's kernels (those are
// kernels/allreduce/, whose key the pages check). probe_flags.cu beside
// it includes it, launches it on every rank with no event barriers around
// it and times it against the book's one-shot; probe.sh builds that with
// nvcc.
//
// Why: on one H200 kernels/allreduce/one_shot.cu took 2.26 µs at 8 B
// against NCCL's 1.67 (results/allreduce/nvidia-h200-1gpu.json,
// 2026-12-01). Each of its calls carries two host barriers across the
// ranks' streams (an event record and a wait per other rank, before and
// after), where NCCL's ranks synchronise inside its kernel.
//
// How: each rank owns a flag array in its own memory, readable and
// writable by the others through peer access (zeroed once, before the
// first call). Every call has an epoch, one more than the call before,
// the same on every rank. Block b of rank r meets block b of every rank
// twice:
//   start: it writes the epoch into slot [0][b][r] of every rank's flags
//          (its own included), then waits until slot [0][b][s] of its own
//          flags holds at least the epoch for every rank s: every rank's
//          block b has started, so their inputs, written by work queued
//          before this call on their streams, are complete;
//   end:   after summing, the same with slots [1][b][*]: every rank's
//          block b has finished reading the elements block b reads, which
//          are the same on every rank (same n, same grid), so once a
//          rank's kernel ends no one still reads its input.
// A rank cannot run two epochs ahead of another (leaving a call needs
// every rank's end flag of that call), so "at least the epoch" suffices.
// Every block of every rank must be resident at once, or a block could
// wait for one that cannot start: the host launches at most two blocks of
// BLOCK threads per SM. A wait longer than WAIT_LIMIT_NS (by the GPU's
// global timer) traps, so a broken protocol faults instead of hanging.
// The start meeting orders nothing this kernel wrote (the inputs were
// written by earlier work on each rank's stream, complete before the
// kernel began), so its flag store is relaxed; the end meeting's is a
// release, after this block's reads of the peers' inputs.
#define MAX_RANKS 8
#define MAX_BLOCKS 1024
#define WAIT_LIMIT_NS 5000000000ull  // 5 s, above the timer's 2 s blocker limit

struct PeersAndFlags {
    const float* in[MAX_RANKS];
    unsigned int* flags[MAX_RANKS];  // [2][MAX_BLOCKS][MAX_RANKS] each
};

__device__ __forceinline__ void store_release(unsigned int* p, unsigned int v) {
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void store_relaxed(unsigned int* p, unsigned int v) {
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* p) {
    unsigned int v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// Block-wide meeting of block blockIdx.x of every rank, in phase `phase`.
__device__ void meet(const PeersAndFlags& p, unsigned int ranks, unsigned int rank, unsigned int epoch,
                     int phase) {
    __syncthreads();
    unsigned int s = threadIdx.x;
    if (s < ranks) {
        unsigned int slot = (phase * MAX_BLOCKS + blockIdx.x) * MAX_RANKS;
        if (phase == 0) {
            store_relaxed(p.flags[s] + slot + rank, epoch);
        } else {
            store_release(p.flags[s] + slot + rank, epoch);
        }
        const unsigned int* mine = p.flags[rank] + slot + s;
        unsigned long long start = now_ns();
        while (load_acquire(mine) < epoch) {
            if (now_ns() - start > WAIT_LIMIT_NS) {
                __trap();
            }
        }
    }
    __syncthreads();
}

extern "C" __global__ void allreduce_one_shot_flags(PeersAndFlags peers, unsigned int ranks,
                                                    unsigned int rank, float* __restrict__ out,
                                                    unsigned long long n, unsigned int epoch) {
    meet(peers, ranks, rank, epoch, 0);
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
    meet(peers, ranks, rank, epoch, 1);
}
