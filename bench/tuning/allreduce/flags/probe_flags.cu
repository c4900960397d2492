// The standalone probe of one_shot_flags.cu (issue 11): the one-shot
// all-reduce whose ranks meet inside the kernel, against the book's
// one-shot (kernels/allreduce/one_shot.cu) with the host barriers
// cuda-runner puts around each of its calls (runner/src/allreduce/ours.rs),
// both under one timer. Not part of the runner: probe.sh beside this file
// builds it with nvcc and runs it; NCCL's figures come from cuda-runner's
// report of the same session (bench/gpu-session.sh, stage allreduce).
//
// Usage: probe_flags [--gpus K] [--samples S] [--max-bytes B]
// Prints one JSON object: the GPUs, then a row per implementation and size
// (8 B, then x4 up to --max-bytes, 16 MiB by default): median and least
// time of one call in µs, samples, calls per sample, and whether every
// rank's output was the exact sum.
//
// Timing, as the runner's all-reduce timer does it (hot, launch latency
// hidden): per sample, each rank's stream first runs a blocking kernel that
// spins on one flag in mapped page-locked host memory, then an event, `reps`
// all-reduce calls and an event; the host releases every rank at once. A
// call's time is the slowest rank's events' interval over `reps`.
//
// Inputs: rank r's element i is (i + r) % 8 + 1, whole numbers whose sum
// over at most 8 ranks float32 holds exactly, in any order: the check is
// equality, on every rank, after the first call and after the last sample.

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../../../kernels/allreduce/one_shot.cu"
#include "one_shot_flags.cu"

#define CK(call)                                                                                        \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "probe_flags.cu:%d: %s: %s\n", __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                               \
        }                                                                                               \
    } while (0)

// Threads per block and blocks per SM of the book's one-shot
// (runner/core/src/allreduce/chunks.rs); the flags probe launches at most
// FLAG_BLOCKS_PER_SM per SM so that every block of every rank is resident.
static const unsigned int BLOCK = 512;
static const unsigned int BLOCKS_PER_SM = 4;
static const unsigned int FLAG_BLOCKS_PER_SM = 2;
static const size_t FLAG_WORDS = 2ull * MAX_BLOCKS * MAX_RANKS;
// A blocker gives up after this long and says so in the flag's second word.
static const unsigned long long BLOCKER_TIMEOUT_NS = 2000000000ull;

__global__ void blocker(volatile int* release) {
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (release[0] == 0) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - start > BLOCKER_TIMEOUT_NS) {
            release[1] = 1;
            return;
        }
    }
}

struct Rank {
    int device;
    unsigned int sms;
    cudaStream_t stream;
    cudaEvent_t start, stop, barrier;
    float* in;
    float* out;
    unsigned int* flags;
};

enum Impl { ONE_SHOT, ONE_SHOT_FLAGS };

// Stream commands one call queues per rank: the one-shot's two barriers
// (an event record and a wait per other rank each) and its launch; the
// flags probe's launch alone.
static unsigned int commands_per_call(Impl impl, size_t ranks) {
    return impl == ONE_SHOT ? (unsigned int)(2 * ranks + 1) : 1;
}

// Calls per sample, as the runner's `reps_for`
// (runner/core/src/allreduce/timing.rs): enough for 200 µs, at most 100,
// and at most 512 queued commands per stream, so that the host never
// waits in a launch behind the blocker (a stream holds about a thousand).
static int reps_for(double single_us, unsigned int commands) {
    int by_queue = std::max(1, std::min(100, (int)(512 / commands)));
    if (!(single_us > 0)) {
        return by_queue;
    }
    return std::max(1, std::min(by_queue, (int)std::ceil(200.0 / single_us)));
}

static unsigned int grid_for(unsigned long long n, unsigned int sms) {
    unsigned long long threads = std::max(1ull, (n + 3) / 4);
    unsigned long long blocks = (threads + BLOCK - 1) / BLOCK;
    return (unsigned int)std::min<unsigned long long>(std::max(1ull, blocks), sms * BLOCKS_PER_SM);
}

struct Probe {
    std::vector<Rank> ranks;
    unsigned int epoch = 0;
    unsigned int least_sms = 0;

    // Every rank's stream waits for what every other rank queued so far.
    void barrier() {
        for (Rank& r : ranks) {
            CK(cudaSetDevice(r.device));
            CK(cudaEventRecord(r.barrier, r.stream));
        }
        for (Rank& r : ranks) {
            for (Rank& s : ranks) {
                if (s.device != r.device) {
                    CK(cudaStreamWaitEvent(r.stream, s.barrier, 0));
                }
            }
        }
    }

    void call(Impl impl, unsigned long long n) {
        unsigned int count = (unsigned int)ranks.size();
        if (impl == ONE_SHOT) {
            Peers peers = {};
            for (unsigned int r = 0; r < count; ++r) {
                peers.in[r] = ranks[r].in;
            }
            barrier();
            for (Rank& r : ranks) {
                CK(cudaSetDevice(r.device));
                allreduce_one_shot<<<grid_for(n, r.sms), BLOCK, 0, r.stream>>>(peers, count, r.out, n);
                CK(cudaGetLastError());
            }
            barrier();
            return;
        }
        PeersAndFlags peers = {};
        for (unsigned int r = 0; r < count; ++r) {
            peers.in[r] = ranks[r].in;
            peers.flags[r] = ranks[r].flags;
        }
        ++epoch;
        // The same grid on every rank (block b meets block b), every block resident.
        unsigned int grid = std::min(std::min(grid_for(n, least_sms), least_sms * FLAG_BLOCKS_PER_SM),
                                     (unsigned int)MAX_BLOCKS);
        for (unsigned int r = 0; r < count; ++r) {
            CK(cudaSetDevice(ranks[r].device));
            allreduce_one_shot_flags<<<grid, BLOCK, 0, ranks[r].stream>>>(peers, count, r, ranks[r].out, n,
                                                                          epoch);
            CK(cudaGetLastError());
        }
    }

    void synchronize() {
        for (Rank& r : ranks) {
            CK(cudaSetDevice(r.device));
            CK(cudaStreamSynchronize(r.stream));
        }
    }

    // Whether every rank's output holds the exact sum of n elements.
    bool exact(unsigned long long n) {
        synchronize();
        std::vector<float> got(n);
        for (Rank& r : ranks) {
            CK(cudaSetDevice(r.device));
            CK(cudaMemcpy(got.data(), r.out, n * sizeof(float), cudaMemcpyDeviceToHost));
            for (unsigned long long i = 0; i < n; ++i) {
                float want = 0;
                for (unsigned int s = 0; s < ranks.size(); ++s) {
                    want += (float)((i + s) % 8 + 1);
                }
                if (got[i] != want) {
                    std::fprintf(stderr, "rank %d: element %llu is %g, want %g\n", r.device, i, got[i], want);
                    return false;
                }
            }
        }
        return true;
    }
};

int main(int argc, char** argv) {
    int gpus = 0;
    int samples = 200;
    unsigned long long max_bytes = 16ull << 20;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!std::strcmp(argv[a], "--gpus")) {
            gpus = std::atoi(argv[a + 1]);
        } else if (!std::strcmp(argv[a], "--samples")) {
            samples = std::atoi(argv[a + 1]);
        } else if (!std::strcmp(argv[a], "--max-bytes")) {
            max_bytes = std::strtoull(argv[a + 1], nullptr, 10);
        } else {
            std::fprintf(stderr, "usage: %s [--gpus K] [--samples S] [--max-bytes B]\n", argv[0]);
            return 2;
        }
    }
    int visible = 0;
    CK(cudaGetDeviceCount(&visible));
    if (gpus == 0) {
        gpus = visible;
    }
    if (gpus < 1 || gpus > visible || gpus > MAX_RANKS || samples < 1) {
        std::fprintf(stderr, "--gpus %d: this machine shows %d GPU(s); the kernels hold at most %d ranks\n", gpus,
                     visible, MAX_RANKS);
        return 2;
    }
    unsigned long long max_n = std::max(2ull, max_bytes / 4);

    Probe probe;
    std::string names;
    for (int d = 0; d < gpus; ++d) {
        CK(cudaSetDevice(d));
        for (int p = 0; p < gpus; ++p) {
            int can = 0;
            if (p == d) {
                continue;
            }
            CK(cudaDeviceCanAccessPeer(&can, d, p));
            if (!can) {
                std::fprintf(stderr, "GPU %d cannot reach GPU %d over peer access\n", d, p);
                return 1;
            }
            CK(cudaDeviceEnablePeerAccess(p, 0));
        }
        cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, d));
        Rank r = {};
        r.device = d;
        r.sms = (unsigned int)prop.multiProcessorCount;
        CK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
        CK(cudaEventCreate(&r.start));
        CK(cudaEventCreate(&r.stop));
        CK(cudaEventCreateWithFlags(&r.barrier, cudaEventDisableTiming));
        CK(cudaMalloc(&r.in, max_n * sizeof(float)));
        CK(cudaMalloc(&r.out, max_n * sizeof(float)));
        CK(cudaMalloc(&r.flags, FLAG_WORDS * sizeof(unsigned int)));
        CK(cudaMemset(r.flags, 0, FLAG_WORDS * sizeof(unsigned int)));
        std::vector<float> in(max_n);
        for (unsigned long long i = 0; i < max_n; ++i) {
            in[i] = (float)((i + d) % 8 + 1);
        }
        CK(cudaMemcpy(r.in, in.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize());
        probe.least_sms = d == 0 ? r.sms : std::min(probe.least_sms, r.sms);
        names += std::string(d ? ", \"" : "\"") + prop.name + "\"";
        probe.ranks.push_back(r);
    }
    int* release = nullptr;
    int* release_dev = nullptr;
    CK(cudaHostAlloc((void**)&release, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    CK(cudaHostGetDevicePointer((void**)&release_dev, release, 0));

    std::printf("{\"probe\": \"one_shot_flags\", \"gpus\": [%s], \"rows\": [", names.c_str());
    bool first_row = true;
    for (unsigned long long bytes = 8; bytes <= max_bytes; bytes *= 4) {
        unsigned long long n = bytes / 4;
        for (Impl impl : {ONE_SHOT, ONE_SHOT_FLAGS}) {
            probe.call(impl, n);
            bool pass = probe.exact(n);
            // Calls per sample by a first, untimed batch (an overestimate:
            // its launches are not hidden).
            CK(cudaSetDevice(0));
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            CK(cudaEventRecord(a, probe.ranks[0].stream));
            for (int i = 0; i < 10; ++i) {
                probe.call(impl, n);
            }
            CK(cudaSetDevice(0));
            CK(cudaEventRecord(b, probe.ranks[0].stream));
            CK(cudaEventSynchronize(b));
            float batch_ms = 0;
            CK(cudaEventElapsedTime(&batch_ms, a, b));
            CK(cudaEventDestroy(a));
            CK(cudaEventDestroy(b));
            int reps = reps_for(1e3 * batch_ms / 10, commands_per_call(impl, probe.ranks.size()));
            probe.synchronize();
            std::vector<double> times;
            for (int s = 0; s < samples; ++s) {
                release[0] = 0;
                release[1] = 0;
                __sync_synchronize();
                for (Rank& r : probe.ranks) {
                    CK(cudaSetDevice(r.device));
                    blocker<<<1, 1, 0, r.stream>>>(release_dev);
                    CK(cudaGetLastError());
                    CK(cudaEventRecord(r.start, r.stream));
                }
                for (int i = 0; i < reps; ++i) {
                    probe.call(impl, n);
                }
                for (Rank& r : probe.ranks) {
                    CK(cudaSetDevice(r.device));
                    CK(cudaEventRecord(r.stop, r.stream));
                }
                __sync_synchronize();
                *(volatile int*)&release[0] = 1;
                double slowest = 0;
                for (Rank& r : probe.ranks) {
                    CK(cudaEventSynchronize(r.stop));
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, r.start, r.stop));
                    slowest = std::max(slowest, 1e3 * ms / reps);
                }
                if (*(volatile int*)&release[1]) {
                    std::fprintf(stderr, "a blocker gave up after 2 s at %llu B; the sample is dropped\n", bytes);
                    continue;
                }
                times.push_back(slowest);
            }
            pass = probe.exact(n) && pass;
            std::sort(times.begin(), times.end());
            double median = times.empty() ? 0 : times[times.size() / 2];
            double least = times.empty() ? 0 : times[0];
            std::printf("%s\n  {\"impl\": \"%s\", \"bytes\": %llu, \"median_us\": %.4f, \"min_us\": %.4f, "
                        "\"samples\": %zu, \"reps\": %d, \"pass\": %s}",
                        first_row ? "" : ",", impl == ONE_SHOT ? "one-shot" : "one-shot-flags", bytes, median,
                        least, times.size(), reps, pass ? "true" : "false");
            std::fflush(stdout);
            first_row = false;
        }
    }
    std::printf("\n]}\n");
    return 0;
}
