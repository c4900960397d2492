// The cold method of the peer benchmarks in C++, as the runner has it
// (runner/src/measure.rs): the blocking kernel, the L2 flush, the events,
// NVML clocks and the stop rule (method.h), plus what the CUB programs
// (cub_sum.cu, cub_scan.cu, cub_histogram.cu) otherwise each wrote again:
// the JSON and version helpers, the counter-based input generator, the
// budget share of --processes, the device's context and meta line, and a
// result line's timing fields and progress line. Each program is one
// translation unit that includes this header once, so its definitions live
// in an anonymous namespace as they did inside cub_sum.cu.
#pragma once

#include <cub/version.cuh>
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

    // One untimed call before the warm-up (with lazy module loading the first
    // launch of a CUB kernel may wait for the context, i.e. for the
    // blocker), then the cold samples.
    template <class Reset, class Work>
    Samples first_then_cold(Reset reset, Work work) {
        CHECK(work(stream));
        CHECK(cudaStreamSynchronize(stream));
        return cold(reset, work);
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
// A counter-based generator (splitmix64 of seed + index), so any prefix of
// the inputs is the same whatever N.

inline uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// fn(begin, end) over disjoint chunks of [0, n), one chunk a host thread (at
// most 64): counter-based inputs and their references fill independently.
template <class Fn>
void host_chunks(size_t n, Fn fn) {
    unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    size_t chunk = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([=] { fn(begin, end); });
    }
    for (auto& th : pool) th.join();
}

// A device copy of host[0, n), for one size's input.
template <class T>
T* device_copy(const T* host, size_t n) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(T)));
    CHECK(cudaMemcpy(d, host, n * sizeof(T), cudaMemcpyHostToDevice));
    return d;
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

int arg_int(int argc, char** argv, const char* name, int fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    return fallback;
}

// --min-log2 / --max-log2 (defaults `min_default` and 30) into the two;
// false, having said why, unless 1 <= min <= max <= 30.
bool log2_range(int argc, char** argv, int min_default, int& min_log2, int& max_log2) {
    min_log2 = arg_int(argc, argv, "--min-log2", min_default);
    max_log2 = arg_int(argc, argv, "--max-log2", 30);
    if (min_log2 < 1 || max_log2 > 30 || min_log2 > max_log2) {
        std::fprintf(stderr, "sizes must satisfy 1 <= --min-log2 <= --max-log2 <= 30\n");
        return false;
    }
    return true;
}

// --processes P (at least 1): this process takes 1/P of the GPU time,
// time-out and sample cap (the runner's Policy::share, method::share).
// Call once, before any sampling. Returns P.
int take_share(int argc, char** argv) {
    const int processes = std::max(1, arg_int(argc, argv, "--processes", 1));
    kMinGpuS /= processes;
    kTimeoutS /= processes;
    kMaxSamples = std::max(kMinSamples, kMaxSamples / size_t(processes));
    return processes;
}

// ---------------------------------------------------------------------------
// The device: device 0 as the runner measures it, its context created
// before anything is timed, the timer on it, and what the meta line says of
// it.

struct Device {
    cudaDeviceProp prop{};
    int l2 = 0, sms = 0, clock_khz = 0, runtime = 0, driver_api = 0;
    std::string driver;  // the kernel module's version, else NVML's, else the CUDA driver API's
};

Device open_device(Timer& tm) {
    Device d;
    const int device = 0;  // the runner measures device 0
    CHECK(cudaSetDevice(device));
    CHECK(cudaFree(nullptr));  // create the context before anything is timed
    CHECK(cudaGetDeviceProperties(&d.prop, device));
    CHECK(cudaDeviceGetAttribute(&d.l2, cudaDevAttrL2CacheSize, device));
    CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, device));
    CHECK(cudaRuntimeGetVersion(&d.runtime));
    CHECK(cudaDriverGetVersion(&d.driver_api));

    tm.init(static_cast<size_t>(d.l2), d.clock_khz / 1000.0);

    d.driver = kernel_driver_version();
    if (d.driver.empty() && tm.nvml.driver_version != nullptr) {
        char buf[96] = {0};
        if (tm.nvml.driver_version(buf, sizeof buf) == 0) d.driver = buf;
    }
    if (d.driver.empty()) d.driver = "CUDA " + version_string(d.driver_api);
    return d;
}

// The meta line: {"impl":"meta", then `head` (the source, the problem), the
// device, versions, flush and seed fields every CUB program writes, `tail`
// (fields of one program, each followed by a comma), and the method.
void print_meta(const std::string& head, const Device& d, const Timer& tm, uint64_t seed,
                int processes, const std::string& tail = "") {
    std::string line = "{\"impl\":\"meta\"," + head + ",\"gpu\":" + json_str(d.prop.name) +
                       ",\"compute_capability\":\"" + std::to_string(d.prop.major) + "." +
                       std::to_string(d.prop.minor) + "\",\"sm_count\":" + std::to_string(d.sms) +
                       ",\"l2_bytes\":" + std::to_string(d.l2) +
                       ",\"default_sm_clock_mhz\":" + json_num(d.clock_khz / 1000.0) +
                       ",\"driver\":" + json_str(d.driver) +
                       ",\"cuda_driver_api\":" + json_str(version_string(d.driver_api)) +
                       ",\"cuda_runtime\":" + json_str(version_string(d.runtime)) +
                       ",\"nvcc\":\"" + std::to_string(__CUDACC_VER_MAJOR__) + "." +
                       std::to_string(__CUDACC_VER_MINOR__) + "\",\"cub_version\":" +
                       std::to_string(CUB_VERSION) + ",\"flush_bytes\":" +
                       std::to_string(tm.flush_bytes) + ",\"nvml_clocks\":" +
                       (tm.nvml.clock_info != nullptr ? "true" : "false") +
                       ",\"seed\":" + std::to_string(static_cast<unsigned long long>(seed)) +
                       ",\"processes\":" + std::to_string(processes) + "," + tail +
                       "\"method\":\"cold: reset, L2 flush memset, blocker, events; runner POLICY\"}\n";
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
}

// ---------------------------------------------------------------------------
// A result line's timing fields, "median_us" to "gb_per_s" (`bytes` over the
// median), as every CUB program writes them between its own fields.

std::string timing_fields(const Samples& s, double bytes) {
    const double med = median(s.times_us);
    // No sample is kept only if every one was throttled until the 12 s cut-off.
    double mn = s.times_us.empty() ? NAN : *std::min_element(s.times_us.begin(), s.times_us.end());
    double mx = s.times_us.empty() ? NAN : *std::max_element(s.times_us.begin(), s.times_us.end());
    return "\"median_us\":" + json_num(med) + ",\"min_us\":" + json_num(mn) +
           ",\"max_us\":" + json_num(mx) + ",\"samples\":" + std::to_string(s.times_us.size()) +
           ",\"rel_spread\":" + json_num(rel_stdev(s.times_us)) +
           ",\"noisy\":" + (s.noisy ? "true" : "false") +
           ",\"throttled\":" + std::to_string(s.throttled) +
           ",\"blocker_timeouts\":" + std::to_string(s.blocker_timeouts) +
           ",\"sm_clock_mhz\":" + json_num(s.sm_clock_mhz) +
           ",\"gb_per_s\":" + json_num(bytes / (med * 1e-6) / 1e9);
}

// After a result line: flush it, and say on stderr what it was.
void report(const char* impl, int64_t n, const Samples& s, bool pass) {
    std::fflush(stdout);
    std::fprintf(stderr, "  %-8s n=2^%d  median %.2f us  (%zu samples%s)  %s\n", impl,
                 int(std::lround(std::log2(double(n)))), median(s.times_us), s.times_us.size(),
                 s.noisy ? ", noisy" : "", pass ? "pass" : "FAIL");
}

}  // namespace
