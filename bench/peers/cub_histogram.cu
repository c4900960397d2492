// Peer benchmark: cub::DeviceHistogram::HistogramEven (bytes in, 256
// unsigned 32-bit bins out) timed with the book runner's cold method
// (runner/src/measure.rs), so that its figures can stand beside the book's
// histogram kernels without a change of method. The timer, stop rule,
// NVML clock reads and JSON output are cold_timer.h's, as cub_sum.cu's.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_histogram cub_histogram.cu
// Run:   ./cub_histogram --problem histogram_u8|histogram_u8_skewed
//            [--sizes 20,24,28] [--seed 1] [--processes 1]
// Output (stdout, JSON lines): one "meta" line, then one line per N. Progress
// goes to stderr.
//
// The call is the one a caller writes for a 256-bin byte histogram:
// HistogramEven(d_temp, temp_bytes, d_samples, d_bins, 257, 0, 256, n,
// stream), levels as int (256 does not fit a byte), the count of samples
// as int, the bins unsigned int as the book's problem has them. CUB zeroes
// the bins itself inside the call; the reset before each sample sets them
// to 0 as the runner does, outside the timed interval.
//
// Inputs, the distributions of the book's problems
// (runner/core/src/problem/histogram_u8.rs): `histogram_u8` bytes uniform
// in [0, 256); `histogram_u8_skewed` each byte 0 with probability 7/8,
// else uniform in [0, 256) (where 0 may fall too). Drawn on the host by a
// counter-based splitmix64 of seed + index; the check compares every bin
// with the host's count, exactly.

#include <cub/cub.cuh>

#include "cold_timer.h"

namespace {

// ---------------------------------------------------------------------------
// Inputs: a counter-based generator (splitmix64 of seed + index), so any
// prefix is the same whatever N. Uniform: the low byte of the draw. Skewed:
// 0 when the draw's top three bits are not all set (probability 7/8), else
// the low byte, as the book's problem draws "a share of 7/8 the value 0,
// the rest uniform in [0, 256)".

inline unsigned char draw_byte(uint64_t seed, size_t i, bool skewed) {
    const uint64_t z = splitmix64(seed + i);
    if (skewed && (z >> 61) != 7) return 0;
    return static_cast<unsigned char>(z & 0xff);
}

void fill_bytes(unsigned char* x, size_t n, uint64_t seed, bool skewed) {
    host_chunks(n, [=](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) x[i] = draw_byte(seed, i, skewed);
    });
}

// Counts of x[begin, end) added into counts.
void count_bytes(const unsigned char* x, size_t begin, size_t end, uint64_t* counts) {
    for (size_t i = begin; i < end; ++i) counts[x[i]] += 1;
}

// ---------------------------------------------------------------------------
// One size: preallocated bins and temp storage, the timed call, then an
// untimed check on poisoned bins.

constexpr int kBins = 256;

void bench_cub(Timer& tm, const unsigned char* d_in, int n, const uint64_t* ref) {
    unsigned int* d_bins = nullptr;
    CHECK(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)));
    const int num_levels = kBins + 1;
    const int lower = 0, upper = kBins;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_bins, num_levels, lower,
                                              upper, n, tm.stream));
    void* d_temp = nullptr;
    CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));

    auto reset = [&](cudaStream_t s) {
        return cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned int), s);
    };
    auto work = [&](cudaStream_t s) {
        return cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_in, d_bins, num_levels,
                                                   lower, upper, n, s);
    };

    Samples s = tm.first_then_cold(reset, work);

    // Poisoned bins: a count CUB did not write never passes.
    CHECK(cudaMemsetAsync(d_bins, 0xFF, kBins * sizeof(unsigned int), tm.stream));
    CHECK(work(tm.stream));
    std::vector<unsigned int> got(kBins);
    CHECK(cudaMemcpyAsync(got.data(), d_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost,
                          tm.stream));
    CHECK(cudaStreamSynchronize(tm.stream));

    int wrong = 0;
    for (int b = 0; b < kBins; ++b) wrong += uint64_t(got[b]) != ref[b] ? 1 : 0;
    const bool pass = wrong == 0;
    // The book's byte count for the problem: the input once, the bins once.
    const double bytes = double(n) + 4.0 * kBins;

    std::printf(
        "{\"impl\":\"cub\",\"n\":%d,\"bytes\":%.0f,%s,\"wrong_bins\":%d,\"bin0\":%u,"
        "\"ref_bin0\":%llu,\"error\":%s,\"tolerance\":0,\"pass\":%s,\"temp_bytes\":%zu,"
        "\"times_us\":%s}\n",
        n, bytes, timing_fields(s, bytes).c_str(), wrong, got[0],
        static_cast<unsigned long long>(ref[0]), json_num(double(wrong) / kBins).c_str(),
        pass ? "true" : "false", temp_bytes, json_array(s.times_us).c_str());
    report("cub", n, s, pass);

    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_bins));
}

const char* arg_str(int argc, char** argv, const char* name, const char* fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    return fallback;
}

// "20,24,28" -> {20, 24, 28}, ascending.
std::vector<int> parse_log2_sizes(const char* text) {
    std::vector<int> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(std::atoi(item.c_str()));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string problem = arg_str(argc, argv, "--problem", "histogram_u8");
    const std::vector<int> sizes = parse_log2_sizes(arg_str(argc, argv, "--sizes", "20,24,28"));
    const uint64_t seed = static_cast<uint64_t>(arg_int(argc, argv, "--seed", 1));
    const int processes = take_share(argc, argv);
    if (problem != "histogram_u8" && problem != "histogram_u8_skewed") {
        std::fprintf(stderr, "--problem must be histogram_u8 or histogram_u8_skewed\n");
        return 2;
    }
    if (sizes.empty() || sizes.front() < 1 || sizes.back() > 30) {
        std::fprintf(stderr, "--sizes must be log2 sizes from 1 to 30\n");
        return 2;
    }
    const bool skewed = problem == "histogram_u8_skewed";

    Timer tm;
    const Device dev = open_device(tm);
    print_meta("\"source\":\"cub_histogram.cu\",\"problem\":" + json_str(problem), dev, tm, seed,
               processes,
               "\"input\":" +
                   json_str(skewed ? "splitmix64: 0 with probability 7/8, else uniform in [0, 256)"
                                   : "splitmix64: uniform in [0, 256)") +
                   ",");

    // One host array at the largest size; each N uses its prefix, and the
    // reference counts grow segment by segment, so the host work is one pass.
    const size_t nmax = size_t(1) << sizes.back();
    std::fprintf(stderr, "cub_histogram: generating %zu bytes on the host (%s)\n", nmax,
                 problem.c_str());
    std::unique_ptr<unsigned char[]> host(new unsigned char[nmax]);
    fill_bytes(host.get(), nmax, seed, skewed);

    uint64_t ref[kBins] = {0};
    size_t done = 0;
    for (int e : sizes) {
        const size_t n = size_t(1) << e;
        count_bytes(host.get(), done, n, ref);
        done = n;

        unsigned char* d_in = device_copy(host.get(), n);
        bench_cub(tm, d_in, static_cast<int>(n), ref);
        CHECK(cudaFree(d_in));
    }

    tm.destroy();
    return 0;
}
