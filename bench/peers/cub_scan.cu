// Peer benchmark: cub::DeviceScan::InclusiveSum (float32 in, float32 out)
// timed with the book runner's cold method (cold_timer.h, as cub_sum.cu),
// for the scan_f32 problem.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_scan cub_scan.cu
// Run:   ./cub_scan [--min-log2 24] [--max-log2 30] [--seed 1] [--processes 1]
// Output (stdout, JSON lines): one "meta" line, then one line per
// (variant, N), N = 2^min, 2^(min + 2), ..., 2^max. Progress goes to stderr.
//
// Two variants, as for the sum: "cub" passes num_items as int64_t (CUB
// then uses 64-bit offsets), "cub_i32" as int (32-bit offsets). Each call
// is what a caller makes: CUB's own kernel that initialises its tile
// states, then its single-pass scan, both between the events. The temporary
// storage is allocated once per size, outside the timed interval.
//
// Check, as the runner's scan_f32 check at the timed sizes: every element,
// |y[i] - ref[i]| / s[i] <= 4 sqrt(N) 2^-24, ref the float64 prefix sums
// of x and s those of |x|; run once more after the samples, untimed, on an
// output first filled with NaN (which never passes).

#include <cub/cub.cuh>

#include "cold_timer.h"

namespace {

// Inputs uniform in [-1, 1) like the runner's timed scan_f32 inputs:
// 2 (k 2^-24) - 1 for a 24-bit k, exactly representable. A scan's time
// does not depend on the values.
void fill_signed(float* x, size_t n, uint64_t seed) {
    host_chunks(n, [=](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            uint64_t k = splitmix64(seed + i) >> 40;  // 24 bits
            x[i] = float(k) * 0x1p-23f - 1.0f;
        }
    });
}

// The worst |y - ref| / s over all elements, with float64 prefix sums of x
// (ref) and |x| (s); chunks on every host thread, each starting from the
// float64 sums of the chunks before it. NaN (or any non-finite y) is
// infinitely wrong. Also returns the index of the worst element.
std::pair<double, size_t> scan_error(const float* x, const float* y, size_t n) {
    unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    size_t chunk = (n + threads - 1) / threads;
    std::vector<double> sums(threads, 0.0), mags(threads, 0.0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([=, &sums, &mags] {
            double s = 0.0, m = 0.0;
            for (size_t i = begin; i < end; ++i) {
                s += double(x[i]);
                m += std::fabs(double(x[i]));
            }
            sums[t] = s;
            mags[t] = m;
        });
    }
    for (auto& th : pool) th.join();
    pool.clear();
    std::vector<std::pair<double, size_t>> worst(threads, {0.0, 0});
    double s0 = 0.0, m0 = 0.0;
    for (unsigned t = 0; t < threads; ++t) {
        size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([=, &worst] {
            double s = s0, m = m0;
            std::pair<double, size_t> w{0.0, begin};
            for (size_t i = begin; i < end; ++i) {
                s += double(x[i]);
                m += std::fabs(double(x[i]));
                double got = double(y[i]);
                double e = std::isfinite(got) ? std::fabs(got - s) / std::max(m, 1e-300) : INFINITY;
                if (!(e <= w.first)) w = {e, i};
            }
            worst[t] = w;
        });
        s0 += sums[t];
        m0 += mags[t];
    }
    for (auto& th : pool) th.join();
    std::pair<double, size_t> w{0.0, 0};
    for (auto& v : worst)
        if (!(v.first <= w.first)) w = v;
    return w;
}

template <typename NumItemsT>
void bench_cub(Timer& tm, const char* impl, const char* num_items_type, const float* d_in,
               const float* host_in, int64_t n) {
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, size_t(n) * sizeof(float)));
    const NumItemsT num_items = static_cast<NumItemsT>(n);
    size_t temp_bytes = 0;
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, d_in, d_out, num_items, tm.stream));
    void* d_temp = nullptr;
    CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));

    // Nothing to reset: every sample overwrites all of y.
    auto reset = [&](cudaStream_t) { return cudaSuccess; };
    auto work = [&](cudaStream_t s) {
        return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, num_items, s);
    };

    Samples s = tm.first_then_cold(reset, work);

    CHECK(cudaMemsetAsync(d_out, 0xFF, size_t(n) * sizeof(float), tm.stream));  // NaN never passes
    CHECK(work(tm.stream));
    std::unique_ptr<float[]> got(new float[n]);
    CHECK(cudaMemcpyAsync(got.get(), d_out, size_t(n) * sizeof(float), cudaMemcpyDeviceToHost,
                          tm.stream));
    CHECK(cudaStreamSynchronize(tm.stream));

    auto [error, worst_i] = scan_error(host_in, got.get(), size_t(n));
    double tolerance = 4.0 * std::sqrt(double(n)) * 0x1p-24;
    bool pass = error <= tolerance;
    const double bytes = 8.0 * double(n);  // x read once, y written once

    std::printf(
        "{\"impl\":%s,\"n\":%lld,\"num_items_type\":%s,\"bytes\":%.0f,%s,\"error\":%s,"
        "\"worst_index\":%zu,\"tolerance\":%s,\"pass\":%s,\"temp_bytes\":%zu,\"times_us\":%s}\n",
        json_str(impl).c_str(), static_cast<long long>(n), json_str(num_items_type).c_str(), bytes,
        timing_fields(s, bytes).c_str(), json_num(error).c_str(), worst_i,
        json_num(tolerance).c_str(), pass ? "true" : "false", temp_bytes,
        json_array(s.times_us).c_str());
    report(impl, n, s, pass);

    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_out));
}

}  // namespace

int main(int argc, char** argv) {
    int min_log2 = 0, max_log2 = 0;
    if (!log2_range(argc, argv, 24, min_log2, max_log2)) return 2;
    const uint64_t seed = static_cast<uint64_t>(arg_int(argc, argv, "--seed", 1));
    const int processes = take_share(argc, argv);

    Timer tm;
    const Device dev = open_device(tm);
    print_meta("\"source\":\"cub_scan.cu\",\"problem\":\"scan_f32\"", dev, tm, seed, processes);

    const size_t nmax = size_t(1) << max_log2;
    std::fprintf(stderr, "cub_scan: generating %zu floats on the host\n", nmax);
    std::unique_ptr<float[]> host(new float[nmax]);
    fill_signed(host.get(), nmax, seed);

    for (int e = min_log2; e <= max_log2; e += 2) {
        const size_t n = size_t(1) << e;
        float* d_in = device_copy(host.get(), n);
        bench_cub<int64_t>(tm, "cub", "int64", d_in, host.get(), static_cast<int64_t>(n));
        bench_cub<int>(tm, "cub_i32", "int32", d_in, host.get(), static_cast<int64_t>(n));
        CHECK(cudaFree(d_in));
    }

    tm.destroy();
    return 0;
}
