// Peer benchmark: cub::DeviceHistogram::HistogramEven (bytes in, 256
// unsigned 32-bit bins out) timed with the book runner's cold method
// (runner/src/measure.rs), so that its figures can stand beside the book's
// histogram kernels without a change of method. The timer, stop rule,
// NVML clock reads and JSON output are cub_sum.cu's, copied step for step.
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
#include <cuda_runtime.h>

#include "method.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// ---------------------------------------------------------------------------
// Errors. Every failure releases the blocking kernel first, so no kernel is
// left spinning on the GPU while the process tears down.

volatile int* g_flag_host = nullptr;

void release_blocker() {
    if (g_flag_host != nullptr) {
        g_flag_host[0] = 1;
        std::atomic_thread_fence(std::memory_order_seq_cst);
    }
}

[[noreturn]] void die(const char* what, cudaError_t e, const char* file, int line) {
    release_blocker();
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    std::exit(1);
}

#define CHECK(call)                                                   \
    do {                                                              \
        cudaError_t e_ = (call);                                      \
        if (e_ != cudaSuccess) die(#call, e_, __FILE__, __LINE__);    \
    } while (0)

// ---------------------------------------------------------------------------
// The sampling policy: the runner's POLICY (runner/core/src/method.rs), value for value.

constexpr size_t kMinSamples = 10;
constexpr double kTargetNoise = 0.005;     // relative stdev that ends sampling
constexpr double kThrottleFraction = 0.75; // of the default SM clock
// The whole budget; one of --processes P processes takes 1/P of it (the
// runner's Policy::share), and pool.py pools the P processes' samples.
double kMinGpuS = 0.1;                     // GPU time needed before it may
double kTimeoutS = 3.0;                    // wall time, then labelled noisy
size_t kMaxSamples = 2000;
// Not split between processes: past it, sampling stops even short of
// kMinSamples (the runner's Policy::max_wall_s).
constexpr double kMaxWallS = 12.0;
constexpr unsigned long long kBlockerTimeoutNs = 2000000000ull;

// The policy of this process, for method::stop_after.
method::Policy policy() {
    method::Policy p;
    p.min_samples = kMinSamples;
    p.target_noise = kTargetNoise;
    p.min_gpu_s = kMinGpuS;
    p.timeout_s = kTimeoutS;
    p.max_wall_s = kMaxWallS;
    p.max_samples = kMaxSamples;
    return p;
}

// ---------------------------------------------------------------------------
// The runner's own support kernels, compiled into this program: cm_blocker
// holds the stream until the host has queued the timed work, so host launch
// latency never falls inside the timed interval; flag[1] records a time-out.
#include "../../runner/src/support_kernels.cu"

// ---------------------------------------------------------------------------
// Statistics and the stop rule: method.h, shared with the conformance test
// that holds them to the Rust and Python rules.

using method::median;
using method::rel_stdev;

// ---------------------------------------------------------------------------
// NVML, loaded at run time (no link-time dependency), for the SM clock read
// after every sample, as the runner does, so throttled samples are dropped.
// Like the runner it reads NVML device 0.

struct Nvml {
    using InitFn = int (*)();
    using HandleFn = int (*)(unsigned int, void**);
    using ClockFn = int (*)(void*, int, unsigned int*);
    using DriverFn = int (*)(char*, unsigned int);

    void* device = nullptr;
    ClockFn clock_info = nullptr;
    DriverFn driver_version = nullptr;

    void open() {
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
        if (lib == nullptr) return;
        auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
        auto by_index = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
        auto clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
        driver_version = reinterpret_cast<DriverFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
        if (init == nullptr || by_index == nullptr || clock == nullptr || init() != 0) return;
        void* dev = nullptr;
        if (by_index(0, &dev) != 0) return;
        device = dev;
        clock_info = clock;
    }

    // Current SM clock in MHz, or a negative value when unknown.
    double sm_mhz() const {
        if (clock_info == nullptr) return -1.0;
        unsigned int mhz = 0;
        const int kNvmlClockSm = 1;  // NVML_CLOCK_SM
        return clock_info(device, kNvmlClockSm, &mhz) == 0 ? double(mhz) : -1.0;
    }
};

// ---------------------------------------------------------------------------
// The cold-sample timer: the runner's Timer (measure.rs) on a CUDA runtime
// stream.

struct Samples {
    std::vector<double> times_us;
    int throttled = 0;
    int blocker_timeouts = 0;
    bool noisy = false;
    double sm_clock_mhz = 0.0;
};

struct Timer {
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    unsigned char* flush = nullptr;
    size_t flush_bytes = 0;
    unsigned char flush_value = 0;
    volatile int* flag_host = nullptr;
    int* flag_dev = nullptr;
    Nvml nvml;
    double default_clock_mhz = 0.0;

    void init(size_t l2_bytes, double default_clock) {
        CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&start));  // default flags: timing enabled
        CHECK(cudaEventCreate(&stop));
        flush_bytes = std::max<size_t>(2 * l2_bytes, size_t(256) << 20);
        CHECK(cudaMalloc(&flush, flush_bytes));
        void* host = nullptr;
        CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
        flag_host = static_cast<volatile int*>(host);
        flag_host[0] = 1;
        flag_host[1] = 0;
        g_flag_host = flag_host;
        void* dev = nullptr;
        CHECK(cudaHostGetDevicePointer(&dev, host, 0));
        flag_dev = static_cast<int*>(dev);
        nvml.open();
        default_clock_mhz = default_clock;
        // Load the blocker's module now (flag already released, so it exits at
        // once): a lazily loaded module while a blocker spins could wait on it.
        cm_blocker<<<1, 1, 0, stream>>>(flag_dev, kBlockerTimeoutNs);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(stream));
    }

    void destroy() {
        CHECK(cudaStreamSynchronize(stream));
        g_flag_host = nullptr;
        CHECK(cudaFreeHost(const_cast<int*>(flag_host)));
        CHECK(cudaFree(flush));
        CHECK(cudaEventDestroy(start));
        CHECK(cudaEventDestroy(stop));
        CHECK(cudaStreamDestroy(stream));
    }

    // One cold sample: reset, L2 flush, blocker, start, work, stop, release,
    // synchronise. Returns microseconds and whether the blocker timed out.
    template <class Reset, class Work>
    std::pair<double, bool> one_cold(Reset& reset, Work& work) {
        CHECK(reset(stream));
        // Change the value every sample so no memory system can skip a repeated write.
        flush_value = static_cast<unsigned char>(flush_value + 1);
        CHECK(cudaMemsetAsync(flush, flush_value, flush_bytes, stream));
        // The stream is idle here (synchronised at the end of the last
        // sample), so nothing reads the flag while it is re-armed.
        flag_host[0] = 0;
        flag_host[1] = 0;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        cm_blocker<<<1, 1, 0, stream>>>(flag_dev, kBlockerTimeoutNs);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(start, stream));
        cudaError_t queued = work(stream);
        cudaError_t recorded = cudaEventRecord(stop, stream);
        release_blocker();
        if (queued != cudaSuccess) die("timed work", queued, __FILE__, __LINE__);
        CHECK(recorded);
        CHECK(cudaStreamSynchronize(stream));
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        bool timed_out = flag_host[1] != 0;
        return {double(ms) * 1000.0, timed_out};
    }

    // Warm-up, then adaptive sampling with the runner's stop rules.
    template <class Reset, class Work>
    Samples cold(Reset reset, Work work) {
        Samples s;
        std::vector<double> clocks, noise_history;
        one_cold(reset, work);  // warm-up, discarded
        auto started = std::chrono::steady_clock::now();
        for (;;) {
            auto [t, timed_out] = one_cold(reset, work);
            s.blocker_timeouts += timed_out ? 1 : 0;
            double clock = nvml.sm_mhz();
            bool throttled = clock >= 0.0 && clock < kThrottleFraction * default_clock_mhz;
            if (throttled) {
                s.throttled += 1;
            } else {
                s.times_us.push_back(t);
                if (clock >= 0.0) clocks.push_back(clock);
            }
            size_t n = s.times_us.size();
            double gpu_s = 0.0;
            for (double x : s.times_us) gpu_s += x;
            gpu_s /= 1e6;
            double noise = rel_stdev(s.times_us);
            // One entry per kept sample, as the runner keeps it.
            if (!throttled) noise_history.push_back(noise);
            double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            int verdict = method::stop_after(policy(), noise_history, gpu_s, elapsed);
            if (verdict >= 0) {
                s.noisy = verdict == 1;
                break;
            }
        }
        s.sm_clock_mhz = median(clocks);
        return s;
    }
};

// ---------------------------------------------------------------------------
// Inputs: a counter-based generator (splitmix64 of seed + index), so any
// prefix is the same whatever N. Uniform: the low byte of the draw. Skewed:
// 0 when the draw's top three bits are not all set (probability 7/8), else
// the low byte, as the book's problem draws "a share of 7/8 the value 0,
// the rest uniform in [0, 256)".

inline uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

inline unsigned char draw_byte(uint64_t seed, size_t i, bool skewed) {
    const uint64_t z = splitmix64(seed + i);
    if (skewed && (z >> 61) != 7) return 0;
    return static_cast<unsigned char>(z & 0xff);
}

// Counter-based, so the host threads fill disjoint chunks independently.
void fill_bytes(unsigned char* x, size_t n, uint64_t seed, bool skewed) {
    unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    size_t chunk = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([=] {
            for (size_t i = begin; i < end; ++i) x[i] = draw_byte(seed, i, skewed);
        });
    }
    for (auto& th : pool) th.join();
}

// Counts of x[begin, end) added into counts.
void count_bytes(const unsigned char* x, size_t begin, size_t end, uint64_t* counts) {
    for (size_t i = begin; i < end; ++i) counts[x[i]] += 1;
}

// ---------------------------------------------------------------------------
// JSON helpers.

std::string json_str(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_num(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

std::string json_array(const std::vector<double>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + json_num(v[i]);
    return out + "]";
}

// The kernel module's version ("580.95.05"), read as the runner reads it.
std::string kernel_driver_version() {
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(f, line)) return "";
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
        bool digits_dots = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
            return (c >= '0' && c <= '9') || c == '.';
        });
        if (digits_dots && w.find('.') != std::string::npos) return w;
    }
    return "";
}

std::string version_string(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
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

    // One untimed call before the warm-up: with lazy module loading the first
    // launch of a CUB kernel may wait for the context, i.e. for the blocker.
    CHECK(work(tm.stream));
    CHECK(cudaStreamSynchronize(tm.stream));

    Samples s = tm.cold(reset, work);

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
    const double med = median(s.times_us);
    // No sample is kept only if every one was throttled until the 12 s cut-off.
    double mn = s.times_us.empty() ? NAN : *std::min_element(s.times_us.begin(), s.times_us.end());
    double mx = s.times_us.empty() ? NAN : *std::max_element(s.times_us.begin(), s.times_us.end());
    // The book's byte count for the problem: the input once, the bins once.
    const double bytes = double(n) + 4.0 * kBins;

    std::printf(
        "{\"impl\":\"cub\",\"n\":%d,\"bytes\":%.0f,\"median_us\":%s,\"min_us\":%s,"
        "\"max_us\":%s,\"samples\":%zu,\"rel_spread\":%s,\"noisy\":%s,\"throttled\":%d,"
        "\"blocker_timeouts\":%d,\"sm_clock_mhz\":%s,\"gb_per_s\":%s,\"wrong_bins\":%d,"
        "\"bin0\":%u,\"ref_bin0\":%llu,\"error\":%s,\"tolerance\":0,\"pass\":%s,"
        "\"temp_bytes\":%zu,\"times_us\":%s}\n",
        n, bytes, json_num(med).c_str(), json_num(mn).c_str(), json_num(mx).c_str(),
        s.times_us.size(), json_num(rel_stdev(s.times_us)).c_str(), s.noisy ? "true" : "false",
        s.throttled, s.blocker_timeouts, json_num(s.sm_clock_mhz).c_str(),
        json_num(bytes / (med * 1e-6) / 1e9).c_str(), wrong, got[0],
        static_cast<unsigned long long>(ref[0]), json_num(double(wrong) / kBins).c_str(),
        pass ? "true" : "false", temp_bytes, json_array(s.times_us).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "  cub      n=2^%d  median %.2f us  (%zu samples%s)  %s\n",
                 int(std::lround(std::log2(double(n)))), med, s.times_us.size(),
                 s.noisy ? ", noisy" : "", pass ? "pass" : "FAIL");

    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_bins));
}

int arg_int(int argc, char** argv, const char* name, int fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    return fallback;
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
    const int processes = std::max(1, arg_int(argc, argv, "--processes", 1));
    kMinGpuS /= processes;
    kTimeoutS /= processes;
    kMaxSamples = std::max(kMinSamples, kMaxSamples / size_t(processes));
    if (problem != "histogram_u8" && problem != "histogram_u8_skewed") {
        std::fprintf(stderr, "--problem must be histogram_u8 or histogram_u8_skewed\n");
        return 2;
    }
    if (sizes.empty() || sizes.front() < 1 || sizes.back() > 30) {
        std::fprintf(stderr, "--sizes must be log2 sizes from 1 to 30\n");
        return 2;
    }
    const bool skewed = problem == "histogram_u8_skewed";

    const int device = 0;  // the runner measures device 0
    CHECK(cudaSetDevice(device));
    CHECK(cudaFree(nullptr));  // create the context before anything is timed
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, device));
    int l2 = 0, sms = 0, clock_khz = 0, runtime = 0, driver_api = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    CHECK(cudaRuntimeGetVersion(&runtime));
    CHECK(cudaDriverGetVersion(&driver_api));

    Timer tm;
    tm.init(static_cast<size_t>(l2), clock_khz / 1000.0);

    std::string driver = kernel_driver_version();
    if (driver.empty() && tm.nvml.driver_version != nullptr) {
        char buf[96] = {0};
        if (tm.nvml.driver_version(buf, sizeof buf) == 0) driver = buf;
    }
    if (driver.empty()) driver = "CUDA " + version_string(driver_api);

    std::printf(
        "{\"impl\":\"meta\",\"source\":\"cub_histogram.cu\",\"problem\":%s,\"gpu\":%s,"
        "\"compute_capability\":\"%d.%d\",\"sm_count\":%d,\"l2_bytes\":%d,"
        "\"default_sm_clock_mhz\":%s,\"driver\":%s,\"cuda_driver_api\":%s,\"cuda_runtime\":%s,"
        "\"nvcc\":\"%d.%d\",\"cub_version\":%d,\"flush_bytes\":%zu,\"nvml_clocks\":%s,"
        "\"seed\":%llu,\"processes\":%d,\"input\":%s,"
        "\"method\":\"cold: reset, L2 flush memset, blocker, events; runner POLICY\"}\n",
        json_str(problem).c_str(), json_str(prop.name).c_str(), prop.major, prop.minor, sms, l2,
        json_num(clock_khz / 1000.0).c_str(), json_str(driver).c_str(),
        json_str(version_string(driver_api)).c_str(), json_str(version_string(runtime)).c_str(),
        __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, CUB_VERSION, tm.flush_bytes,
        tm.nvml.clock_info != nullptr ? "true" : "false", static_cast<unsigned long long>(seed),
        processes,
        json_str(skewed ? "splitmix64: 0 with probability 7/8, else uniform in [0, 256)"
                        : "splitmix64: uniform in [0, 256)")
            .c_str());
    std::fflush(stdout);

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

        unsigned char* d_in = nullptr;
        CHECK(cudaMalloc(&d_in, n));
        CHECK(cudaMemcpy(d_in, host.get(), n, cudaMemcpyHostToDevice));
        bench_cub(tm, d_in, static_cast<int>(n), ref);
        CHECK(cudaFree(d_in));
    }

    tm.destroy();
    return 0;
}
