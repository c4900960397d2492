/*+++
problem = "layernorm_rows"
dtype = "f32"
rows = "67108864 / n"
# Meant for rows of 2^10 to 2^14 floats, which fit one block. Rows up to
# 32 x 1024 = 32768 floats fit.
sizes = ["2^10", "2^12", "2^14"]
# One row per block; a warp for every 1024 columns, so each thread holds 32
# floats (8 float4) in registers, as in layernorm_cached_block.
[[launch]]
kernel = "layernorm_asm_load"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cached_sums with x loaded through inline PTX with no cache
// hint (ptx_loads.cuh): the control for layernorm_evict_first, which uses
// the same asm with the hints, so that what the asm alone changes in the
// compiled kernel is measured apart from what the hints change. The float4
// path only; rows whose length is not a multiple of 4 read x plainly.

#include "layernorm_sums.cuh"
#include "ptx_loads.cuh"

// ANCHOR: kernel
extern "C" __global__ void __launch_bounds__(1024) layernorm_asm_load(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    layernorm_sums_row(x, weight, bias, y, eps, cols, [](const float4* p) { return load_asm(p); });
}
// ANCHOR_END: kernel
