/*+++
problem = "scan_f32"
sizes = ["2^24", "2^28"]
# One pass, one block of 256 threads per tile of 4096 elements (the tile
# of problems/scan_f32.cu). `counter` hands out tile numbers in the order
# blocks start; `status` holds one 64-bit word per tile (two u32 each).
# Both are set to 0 before every run, outside the timed region.
[scratch]
counter = { len = 1, elem = "u32", init = "zeroed" }
status = { len = "2 * grid0", elem = "u32", init = "zeroed" }
[[launch]]
kernel = "scan_lookback_serial"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n", "counter", "status"]
+++*/

// problems/scan_f32.cu with its flag and value in one word: lane 0 of
// warp 0 still looks back one tile at a time.
#define LOOK_BACK(status, t, lane) (lane == 0 ? look_back_serial(status, t) : 0.0f)
#include "scalar_tile.cuh"

extern "C" __global__ void scan_lookback_serial(const float* __restrict__ x, float* __restrict__ y,
                                                unsigned int n, unsigned int* counter,
                                                unsigned long long* status) {
    scan_scalar_tile(x, y, n, counter, status);
}
