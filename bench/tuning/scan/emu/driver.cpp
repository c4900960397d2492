// Runs one scan kernel file in the emulator (emu.h) at several sizes with
// whole-number inputs 1 to 4 and checks every element exactly.
// Build: g++ -O1 -std=c++17 -DKFILE='"path.cu"' -DPLAN_xxx [-DITEMS=4] driver.cpp
#include "emu.h"
#include KFILE

#include <algorithm>

static unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }
#ifndef SMS
#define SMS 132u
#endif

static void poison(std::vector<float>& v) {
    unsigned u = 0x7fc00000u;
    for (auto& f : v) std::memcpy(&f, &u, 4);
}

// One run of the plan; returns false if it is not written for this file.
static void run(const float* x, float* y, unsigned n) {
#if defined(PLAN_PROPAGATE)
    unsigned grid = ceil_div(n, 1024);
    std::vector<float> sums(grid);
    poison(sums);
    emu::launch(grid, BLOCK0, [&] { KERNEL0(x, y, sums.data(), n); });
    emu::launch(1, 1024, [&] { scan_tile_sums(sums.data(), grid); });
    emu::launch(grid, 1024, [&] { add_tile_offsets(y, sums.data(), n); });
#elif defined(PLAN_RTS)
    unsigned grid = std::min(ceil_div(n, 4096), SMS * 8u);
    std::vector<float> partials(grid);
    poison(partials);
    emu::launch(grid, 256, [&] { reduce_runs(x, partials.data(), n); });
    emu::launch(1, 1024, [&] { scan_partials(partials.data(), grid); });
    emu::launch(grid, 256, [&] { scan_runs(x, y, partials.data(), n); });
#elif defined(PLAN_SINGLE)
    // one launch, zeroed counter and status (TILE_ELEMS elements a tile)
    unsigned grid = ceil_div(n, TILE_ELEMS);
    std::vector<unsigned> counter(1, 0), status(2 * grid, 0);
    emu::launch(grid, BLOCK0, [&] {
        KERNEL0(x, y, n, counter.data(), reinterpret_cast<unsigned long long*>(status.data()));
    });
#elif defined(PLAN_PROBLEM)
    unsigned grid = ceil_div(n, 4096);
    std::vector<unsigned> counter(1, 0), flags(grid, 0);
    std::vector<float> agg(grid), pre(grid);
    poison(agg);
    poison(pre);
    emu::launch(grid, 256, [&] { scan_lookback(x, y, n, counter.data(), flags.data(), agg.data(), pre.data()); });
#elif defined(PLAN_CLEARED)
    // two launches, kept scratch (poisoned), cleared by launch 0
    unsigned grid = ceil_div(n, TILE_ELEMS);
    static std::vector<unsigned> counter, status;
    counter.assign(1, 0x7fc00000u);
    status.assign(2 * grid, 0x7fc00000u);
    auto* st = reinterpret_cast<unsigned long long*>(status.data());
    emu::launch(ceil_div(grid, 256), 256, [&] { clear_status(st, counter.data(), n); });
    emu::launch(grid, BLOCK0, [&] { KERNEL0(x, y, n, counter.data(), st); });
#elif defined(PLAN_ONE_THREAD)
    emu::launch(1, 1, [&] { scan_one_thread(x, y, n); });
#elif defined(PLAN_EX_PROPAGATE)
    unsigned grid = ceil_div(n, 1024);
    std::vector<float> sums(grid);
    poison(sums);
    emu::launch(grid, 1024, [&] { scan_tiles(x, y, sums.data(), n); });
    emu::launch(1, 1024, [&] { scan_sums(sums.data(), grid); });
    emu::launch(grid, 1024, [&] { add_offsets(y, sums.data(), n); });
#else
#error "no plan"
#endif
}

int main(int argc, char** argv) {
    std::vector<unsigned> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {1, 33, 1025, 4097, 65537};
    int bad = 0;
    for (unsigned n : sizes) {
        std::vector<float> x(n), y(n);
        unsigned long long z = 12345;
        for (auto& v : x) {
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            v = float(1 + (z >> 33) % 4);
        }
        poison(y);
        run(x.data(), y.data(), n);
        double s = 0;
        unsigned wrong = 0, first = n;
        for (unsigned i = 0; i < n; ++i) {
            s += x[i];
            if (y[i] != s) {
                if (!wrong) first = i;
                ++wrong;
            }
        }
        std::printf("n=%u: %s", n, wrong ? "WRONG" : "ok");
        if (wrong) std::printf(" (%u wrong, first y[%u] = %g)", wrong, first, y[first]);
        std::printf("\n");
        bad += wrong != 0;
    }
    return bad != 0;
}
