// The measuring method's statistics and stop rule, as the runner has them
// (runner/core/src/method.rs): plain C++, no CUDA, so that cub_sum.cu uses
// them and the conformance test (conformance/replay.cpp, run by
// scripts/test) holds them to the same verdicts as the Rust and Python
// rules.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace method {

// The sampling policy (the runner's Policy); POLICY's values below.
struct Policy {
    size_t min_samples = 10;
    double target_noise = 0.005;  // relative stdev that ends sampling
    double min_gpu_s = 0.1;       // GPU time needed before either rule may stop
    double timeout_s = 3.0;       // wall time, then labelled noisy
    double max_wall_s = 12.0;     // not split: past it, stop even short of min_samples
    size_t max_samples = 2000;
};

// One of `processes` processes takes 1/P of the GPU time, time-out and
// sample cap (the runner's Policy::share).
inline Policy share(Policy p, int processes) {
    p.min_gpu_s /= processes;
    p.timeout_s /= processes;
    p.max_samples = std::max(p.min_samples, p.max_samples / size_t(processes));
    return p;
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

// Sample standard deviation over mean (0 for fewer than two values).
inline double rel_stdev(const std::vector<double>& v) {
    if (v.size() < 2) return 0.0;
    double mean = 0.0;
    for (double x : v) mean += x;
    mean /= double(v.size());
    double var = 0.0;
    for (double x : v) var += (x - mean) * (x - mean);
    var /= double(v.size() - 1);
    return mean > 0.0 ? std::sqrt(var) / mean : 0.0;
}

// The noise estimate has stopped improving: over the last quarter of the
// samples it moved by less than 1% of its value.
inline bool noise_settled(const std::vector<double>& history) {
    size_t n = history.size();
    double back = history[n - n / 4 - 1];
    double now = history[n - 1];
    return now > 0.0 && std::fabs((back - now) / now) < 0.01;
}

// After each kept sample: -1 to go on, 0 to stop with a settled figure, 1
// to stop with a noisy one. `history` holds the noise after each kept
// sample, `gpu_s` their sum in seconds, `elapsed` the wall time since the
// warm-up.
inline int stop_after(const Policy& p, const std::vector<double>& history, double gpu_s,
                      double elapsed) {
    size_t n = history.size();
    double noise = n > 0 ? history.back() : 0.0;
    if (n >= p.min_samples) {
        bool enough_time = gpu_s >= p.min_gpu_s;
        if (enough_time && noise <= p.target_noise) return 0;
        if (enough_time && n >= 4 * p.min_samples && noise_settled(history)) return 0;
        if (n >= p.max_samples) return 0;
        if (elapsed > p.timeout_s) return noise > p.target_noise ? 1 : 0;
    }
    return elapsed > p.max_wall_s ? 1 : -1;
}

}  // namespace method
