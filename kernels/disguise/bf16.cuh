// bfloat16 without <cuda_bf16.h>, which the pinned NVRTC does not have: a
// bf16 is handled as its 16 raw bits, the top half of a float32, widened
// by a shift and converted back with the hardware's round-to-nearest-even.
// Shared by the bf16 kernels of "Reductions in disguise", with the layout
// in which they hold a row: two values packed in each register.

typedef unsigned short bf16;

// ANCHOR: bf16
// A bf16 is the upper 16 bits of a float32, so widening is a shift.
__device__ float low_half(unsigned int pair) { return __uint_as_float(pair << 16); }
__device__ float high_half(unsigned int pair) { return __uint_as_float(pair & 0xffff0000u); }

// Two floats to two bf16 in one instruction, rounded to nearest even; lo
// lands in the lower half (the lower address).
__device__ unsigned int pack_bf16x2(float lo, float hi) {
    unsigned int pair;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(pair) : "f"(hi), "f"(lo));
    return pair;
}

__device__ bf16 to_bf16(float v) {
    bf16 bits;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
    return bits;
}
// ANCHOR_END: bf16

__device__ float from_bf16(bf16 bits) { return __uint_as_float((unsigned int)bits << 16); }

// Whether this thread's k-th value is a column of the row. Value k is
// column 8 * (threadIdx.x + (k / 8) * blockDim.x) + k % 8 with 16-byte
// loads, threadIdx.x + k * blockDim.x without, so either way a warp's loads
// are contiguous. With 16-byte loads the test is per load, shared by eight
// values, which keeps it out of the per-element work.
__device__ bool in_row(int k, bool vec, unsigned int cols) {
    return vec ? threadIdx.x + (k / 8) * blockDim.x < cols / 8 : threadIdx.x + k * blockDim.x < cols;
}

// Value k lives in half k % 2 of register k / 2.
__device__ float value(const unsigned int* pairs, int k) {
    return k % 2 == 0 ? low_half(pairs[k / 2]) : high_half(pairs[k / 2]);
}
