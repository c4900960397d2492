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
kernel = "layernorm_cached_sums"
grid = "rows"
block = "min(1024, 32 * ceil_div(cols, 1024))"
args = ["x", "weight", "bias", "y", "eps", "rows", "cols"]
+++*/

// layernorm_cached_block with three changes, each small:
// - the moments are two plain block sums, the row's sum and then the sum of
//   squared deviations from the row's mean, instead of one merge of
//   per-thread (count, mean, m2) triples: the deviations are small numbers,
//   so nothing is lost, and a sum is one add per step where Chan's merge
//   is a division and five multiply-adds;
// - a block of one warp (rows of up to 1024 floats) sums by shuffles alone,
//   with no shared memory and no barrier;
// - the weight and bias loads are issued early: the first pair before the
//   reductions, whose latency then covers theirs, and each later pair two
//   stores before it is needed.
// What they buy together is measured against layernorm_cached_block in the
// chapter; bench/tuning/disguise-kernels/variants3 and variants4 measured
// them one at a time.

// The kernel's body is in layernorm_sums.cuh, which layernorm_evict_first
// shares; here x is loaded plainly.

#include "layernorm_sums.cuh"

extern "C" __global__ void __launch_bounds__(1024) layernorm_cached_sums(
    const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
    float* __restrict__ y, float eps, unsigned int rows, unsigned int cols) {
    layernorm_sums_row(x, weight, bias, y, eps, cols, [](const float4* p) { return *p; });
}
