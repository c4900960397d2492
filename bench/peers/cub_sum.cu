// Peer benchmark: cub::DeviceReduce::Sum (float32 in, float32 out) timed
// with the book runner's cold method (runner/src/measure.rs), so that its
// figures can stand beside the book's kernels without a change of method.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_sum cub_sum.cu
// Run:   ./cub_sum [--min-log2 16] [--max-log2 30] [--seed 1]
// Output (stdout, JSON lines): one "meta" line, then one line per
// (variant, N). Progress goes to stderr.
//
// Two variants are timed: "cub" passes num_items as int64_t (CUB then uses
// 64-bit offsets), "cub_i32" passes it as int (32-bit offsets, what most
// callers with N < 2^31 get). Both are the same library call.

#include <cub/cub.cuh>

#include "cold_timer.h"

namespace {

// ---------------------------------------------------------------------------
// Inputs: a counter-based generator (splitmix64 of seed + index), so any
// prefix is the same whatever N, and values in (0, 1) exactly representable:
// (2k + 1) * 2^-24 for a 23-bit k, never zero.

// Counter-based, so the host threads fill disjoint chunks independently.
void fill_uniform(float* x, size_t n, uint64_t seed) {
    unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    size_t chunk = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([=] {
            for (size_t i = begin; i < end; ++i) {
                uint64_t k = splitmix64(seed + i) >> 41;  // 23 bits
                x[i] = float(2 * k + 1) * 0x1p-24f;
            }
        });
    }
    for (auto& th : pool) th.join();
}

// Float64 sum of x[begin, end); eight accumulators keep the host loop fast.
double sum_f64(const float* x, size_t begin, size_t end) {
    double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = begin;
    for (; i + 8 <= end; i += 8)
        for (int j = 0; j < 8; ++j) a[j] += double(x[i + j]);
    for (; i < end; ++i) a[0] += double(x[i]);
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// ---------------------------------------------------------------------------
// One variant at one size: preallocated output and temp storage, the timed
// call, then an untimed check on a NaN-poisoned output.

template <typename NumItemsT>
void bench_cub(Timer& tm, const char* impl, const char* num_items_type, const float* d_in,
               int64_t n, double ref, double abs_sum) {
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, sizeof(float)));
    const NumItemsT num_items = static_cast<NumItemsT>(n);
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, num_items, tm.stream));
    void* d_temp = nullptr;
    CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));

    auto reset = [&](cudaStream_t s) { return cudaMemsetAsync(d_out, 0, sizeof(float), s); };
    auto work = [&](cudaStream_t s) {
        return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, num_items, s);
    };

    // One untimed call before the warm-up: with lazy module loading the first
    // launch of a CUB kernel may wait for the context, i.e. for the blocker.
    CHECK(work(tm.stream));
    CHECK(cudaStreamSynchronize(tm.stream));

    Samples s = tm.cold(reset, work);

    CHECK(cudaMemsetAsync(d_out, 0xFF, sizeof(float), tm.stream));  // NaN never passes
    CHECK(work(tm.stream));
    float got = 0.0f;
    CHECK(cudaMemcpyAsync(&got, d_out, sizeof(float), cudaMemcpyDeviceToHost, tm.stream));
    CHECK(cudaStreamSynchronize(tm.stream));

    double error = std::fabs(double(got) - ref) / abs_sum;
    double tolerance = 4.0 * std::sqrt(double(n)) * 0x1p-24;
    bool pass = std::isfinite(got) && error <= tolerance;
    double med = median(s.times_us);
    // No sample is kept only if every one was throttled until the 12 s cut-off.
    double mn = s.times_us.empty() ? NAN : *std::min_element(s.times_us.begin(), s.times_us.end());
    double mx = s.times_us.empty() ? NAN : *std::max_element(s.times_us.begin(), s.times_us.end());

    std::printf(
        "{\"impl\":%s,\"n\":%lld,\"num_items_type\":%s,\"median_us\":%s,\"min_us\":%s,"
        "\"max_us\":%s,\"samples\":%zu,\"rel_spread\":%s,\"noisy\":%s,\"throttled\":%d,"
        "\"blocker_timeouts\":%d,\"sm_clock_mhz\":%s,\"gb_per_s\":%s,\"got\":%s,\"ref\":%s,"
        "\"error\":%s,\"tolerance\":%s,\"pass\":%s,\"temp_bytes\":%zu,\"times_us\":%s}\n",
        json_str(impl).c_str(), static_cast<long long>(n), json_str(num_items_type).c_str(),
        json_num(med).c_str(), json_num(mn).c_str(), json_num(mx).c_str(), s.times_us.size(),
        json_num(rel_stdev(s.times_us)).c_str(), s.noisy ? "true" : "false", s.throttled,
        s.blocker_timeouts, json_num(s.sm_clock_mhz).c_str(),
        json_num(double(n) * sizeof(float) / (med * 1e-6) / 1e9).c_str(), json_num(got).c_str(),
        json_num(ref).c_str(), json_num(error).c_str(), json_num(tolerance).c_str(),
        pass ? "true" : "false", temp_bytes, json_array(s.times_us).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "  %-8s n=2^%d  median %.2f us  (%zu samples%s)  %s\n", impl,
                 int(std::lround(std::log2(double(n)))), med, s.times_us.size(),
                 s.noisy ? ", noisy" : "", pass ? "pass" : "FAIL");

    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_out));
}

}  // namespace

int main(int argc, char** argv) {
    const int min_log2 = arg_int(argc, argv, "--min-log2", 16);
    const int max_log2 = arg_int(argc, argv, "--max-log2", 30);
    const uint64_t seed = static_cast<uint64_t>(arg_int(argc, argv, "--seed", 1));
    const int processes = std::max(1, arg_int(argc, argv, "--processes", 1));
    kMinGpuS /= processes;
    kTimeoutS /= processes;
    kMaxSamples = std::max(kMinSamples, kMaxSamples / size_t(processes));
    if (min_log2 < 1 || max_log2 > 30 || min_log2 > max_log2) {
        std::fprintf(stderr, "sizes must satisfy 1 <= --min-log2 <= --max-log2 <= 30\n");
        return 2;
    }

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
        "{\"impl\":\"meta\",\"source\":\"cub_sum.cu\",\"gpu\":%s,\"compute_capability\":\"%d.%d\","
        "\"sm_count\":%d,\"l2_bytes\":%d,\"default_sm_clock_mhz\":%s,\"driver\":%s,"
        "\"cuda_driver_api\":%s,\"cuda_runtime\":%s,\"nvcc\":\"%d.%d\",\"cub_version\":%d,"
        "\"flush_bytes\":%zu,\"nvml_clocks\":%s,\"seed\":%llu,\"processes\":%d,"
        "\"method\":\"cold: reset, L2 flush memset, blocker, events; runner POLICY\"}\n",
        json_str(prop.name).c_str(), prop.major, prop.minor, sms, l2,
        json_num(clock_khz / 1000.0).c_str(), json_str(driver).c_str(),
        json_str(version_string(driver_api)).c_str(), json_str(version_string(runtime)).c_str(),
        __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, CUB_VERSION, tm.flush_bytes,
        tm.nvml.clock_info != nullptr ? "true" : "false", static_cast<unsigned long long>(seed), processes);
    std::fflush(stdout);

    // One host array at the largest size; each N uses its prefix, and the
    // float64 reference grows segment by segment, so the host work is one pass.
    const size_t nmax = size_t(1) << max_log2;
    std::fprintf(stderr, "cub_sum: generating %zu floats on the host\n", nmax);
    std::unique_ptr<float[]> host(new float[nmax]);
    fill_uniform(host.get(), nmax, seed);

    double ref = 0.0;
    size_t done = 0;
    for (int e = min_log2; e <= max_log2; e += 2) {
        const size_t n = size_t(1) << e;
        ref += sum_f64(host.get(), done, n);
        done = n;
        const double abs_sum = ref;  // every value is positive

        float* d_in = nullptr;
        CHECK(cudaMalloc(&d_in, n * sizeof(float)));
        CHECK(cudaMemcpy(d_in, host.get(), n * sizeof(float), cudaMemcpyHostToDevice));

        bench_cub<int64_t>(tm, "cub", "int64", d_in, static_cast<int64_t>(n), ref, abs_sum);
        bench_cub<int>(tm, "cub_i32", "int32", d_in, static_cast<int64_t>(n), ref, abs_sum);

        CHECK(cudaFree(d_in));
    }

    tm.destroy();
    return 0;
}
