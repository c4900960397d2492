// Build: see run.sh. KERNEL (the function), GRID(m, n) and BLOCK come from -D.
#include "shim.h"
#include <cstdio>
#include <cstdlib>
#include <random>
#include KERNEL_FILE

static int check(unsigned m, unsigned n, unsigned k, bool ints, unsigned seed) {
    std::mt19937 rng(seed);
    auto alloc = [](size_t len) {
        return static_cast<float*>(std::aligned_alloc(256, ((len * 4 + 255) / 256) * 256));
    };
    float* a = alloc((size_t)m * k);
    float* b = alloc((size_t)k * n);
    float* c = alloc((size_t)m * n);
    std::uniform_int_distribution<int> di(-2, 2);
    std::uniform_real_distribution<float> df(-1.0f, 1.0f);
    for (size_t i = 0; i < (size_t)m * k; ++i) a[i] = ints ? (float)di(rng) : df(rng);
    for (size_t i = 0; i < (size_t)k * n; ++i) b[i] = ints ? (float)di(rng) : df(rng);
    for (size_t i = 0; i < (size_t)m * n; ++i) c[i] = NAN;
    launch(GRID(m, n), BLOCK, [=] { KERNEL(a, b, c, m, n, k); });
    double worst = 0;
    long bad = 0;
    for (unsigned i = 0; i < m; ++i)
        for (unsigned j = 0; j < n; ++j) {
            double ref = 0, scale = 0;
            for (unsigned p = 0; p < k; ++p) {
                ref += (double)a[(size_t)i * k + p] * b[(size_t)p * n + j];
                scale += std::fabs((double)a[(size_t)i * k + p] * b[(size_t)p * n + j]);
            }
            double got = c[(size_t)i * n + j];
            double err = ints ? std::fabs(got - ref) : std::fabs(got - ref) / (scale > 0 ? scale : 1);
            if (!(err <= (ints ? 0.0 : (4 * std::sqrt((double)k) + 8) / 16777216.0))) {
                if (bad < 3) std::printf("  C[%u][%u] = %g, want %g\n", i, j, got, ref);
                ++bad;
            }
            if (err > worst || std::isnan(err)) worst = err;
        }
    std::printf("%-8s %5u x %5u x %5u %s: %s (worst %.3g, %ld wrong)\n", STR(KERNEL), m, n, k,
                ints ? "ints  " : "floats", bad ? "FAIL" : "ok", worst, bad);
    std::free(a), std::free(b), std::free(c);
    return bad ? 1 : 0;
}

int main(int argc, char** argv) {
    int fails = 0;
    // The problem's edge shapes, exact; then shapes with whole tiles.
    unsigned edge[][3] = {{1, 1, 1}, {33, 17, 65}, {100, 130, 7}, {129, 257, 3}, {255, 64, 129}};
    for (auto& s : edge) fails += check(s[0], s[1], s[2], true, 1);
    unsigned whole[][3] = {{256, 256, 64}, {384, 256, 96}, {256, 512, 32}, {260, 264, 48}};
    for (auto& s : whole) fails += check(s[0], s[1], s[2], true, 2);
    fails += check(256, 256, 256, false, 3);
    return fails ? 1 : 0;
}
