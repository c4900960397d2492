// The warp look-back of kernels/scan/lookback.cuh against a status array
// laid out by hand: windows of aggregates, a prefix far back, tile 0.
#include "emu.h"
#include "../../../../kernels/scan/lookback.cuh"

int main() {
    int bad = 0;
    // tiles 0..199: tile p's aggregate is p + 1; tiles at multiples of
    // `every` (and tile 0) publish their inclusive prefix instead.
    for (unsigned every : {1u, 7u, 31u, 32u, 33u, 64u, 1000u}) {
        const unsigned tiles = 200;
        std::vector<unsigned long long> status(tiles);
        std::vector<double> incl(tiles);
        double s = 0;
        for (unsigned p = 0; p < tiles; ++p) {
            s += p + 1;
            incl[p] = s;
            bool prefix = p == 0 || p % every == 0;
            float v = prefix ? float(s) : float(p + 1);
            status[p] = ((unsigned long long)(prefix ? PREFIX : AGGREGATE) << 32) | __float_as_uint(v);
        }
        for (unsigned t = 1; t < tiles; ++t) {
            float got = -1;
            emu::launch(1, 32, [&] {
                float e = look_back_warp(status.data(), t, threadIdx.x % 32);
                if (threadIdx.x == 0) got = e;
            });
            if (got != incl[t - 1]) {
                std::printf("every %u, t %u: got %g, want %g\n", every, t, got, incl[t - 1]);
                ++bad;
            }
            float serial = look_back_serial(status.data(), t);
            if (serial != incl[t - 1]) {
                std::printf("serial: every %u, t %u: got %g, want %g\n", every, t, serial, incl[t - 1]);
                ++bad;
            }
        }
    }
    std::printf("%s\n", bad ? "WRONG" : "look-back ok");
    return bad != 0;
}
