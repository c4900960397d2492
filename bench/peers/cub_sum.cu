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

void fill_uniform(float* x, size_t n, uint64_t seed) {
    host_chunks(n, [=](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            uint64_t k = splitmix64(seed + i) >> 41;  // 23 bits
            x[i] = float(2 * k + 1) * 0x1p-24f;
        }
    });
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

    Samples s = tm.first_then_cold(reset, work);

    CHECK(cudaMemsetAsync(d_out, 0xFF, sizeof(float), tm.stream));  // NaN never passes
    CHECK(work(tm.stream));
    float got = 0.0f;
    CHECK(cudaMemcpyAsync(&got, d_out, sizeof(float), cudaMemcpyDeviceToHost, tm.stream));
    CHECK(cudaStreamSynchronize(tm.stream));

    double error = std::fabs(double(got) - ref) / abs_sum;
    double tolerance = 4.0 * std::sqrt(double(n)) * 0x1p-24;
    bool pass = std::isfinite(got) && error <= tolerance;
    std::printf(
        "{\"impl\":%s,\"n\":%lld,\"num_items_type\":%s,%s,\"got\":%s,\"ref\":%s,\"error\":%s,"
        "\"tolerance\":%s,\"pass\":%s,\"temp_bytes\":%zu,\"times_us\":%s}\n",
        json_str(impl).c_str(), static_cast<long long>(n), json_str(num_items_type).c_str(),
        timing_fields(s, double(n) * sizeof(float)).c_str(), json_num(got).c_str(),
        json_num(ref).c_str(), json_num(error).c_str(), json_num(tolerance).c_str(),
        pass ? "true" : "false", temp_bytes, json_array(s.times_us).c_str());
    report(impl, n, s, pass);

    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_out));
}

}  // namespace

int main(int argc, char** argv) {
    int min_log2 = 0, max_log2 = 0;
    if (!log2_range(argc, argv, 16, min_log2, max_log2)) return 2;
    const uint64_t seed = static_cast<uint64_t>(arg_int(argc, argv, "--seed", 1));
    const int processes = take_share(argc, argv);

    Timer tm;
    const Device dev = open_device(tm);
    print_meta("\"source\":\"cub_sum.cu\"", dev, tm, seed, processes);

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

        float* d_in = device_copy(host.get(), n);
        bench_cub<int64_t>(tm, "cub", "int64", d_in, static_cast<int64_t>(n), ref, abs_sum);
        bench_cub<int>(tm, "cub_i32", "int32", d_in, static_cast<int64_t>(n), ref, abs_sum);

        CHECK(cudaFree(d_in));
    }

    tm.destroy();
    return 0;
}
