/*+++
problem = "scan_f32"
sizes = ["2^24", "2^28"]
# One pass, one block of 256 threads per tile of 4096 elements, as
# lookback_serial.cu; `counter` and `status` are set to 0 before every
# run, outside the timed region.
[scratch]
counter = { len = 1, elem = "u32", init = "zeroed" }
status = { len = "2 * grid0", elem = "u32", init = "zeroed" }
[[launch]]
kernel = "scan_lookback_warp"
grid = "ceil_div(n, 4096)"
block = 256
args = ["x", "y", "n", "counter", "status"]
+++*/

// lookback_serial.cu with warp 0 looking back 32 tiles at a time.
#define LOOK_BACK(status, t, lane) look_back_warp(status, t, lane)
#include "scalar_tile.cuh"

extern "C" __global__ void scan_lookback_warp(const float* __restrict__ x, float* __restrict__ y,
                                              unsigned int n, unsigned int* counter,
                                              unsigned long long* status) {
    scan_scalar_tile(x, y, n, counter, status);
}
