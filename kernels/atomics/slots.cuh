// Two launches for the atomics chapter's spread-address examples.
//
// add_to_slots: every thread adds its element, with one atomicAdd, to one
// of SLOTS floats of a zeroed scratch array; SLOT(i) (defined by the file
// that includes this one) picks which. SLOTS is a power of two, so the
// modulo below is a mask.
//
// sum_slots: one block adds up the SLOTS floats and writes the total.
// The kernel boundary between the two is the barrier: every atomic of the
// first launch has landed before the second reads the slots.

#include "reductions/block_sum.cuh"

// ANCHOR: add
extern "C" __global__ void add_to_slots(const float* __restrict__ x, float* __restrict__ slots,
                                        unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&slots[SLOT(i) % SLOTS], x[i]);
    }
}
// ANCHOR_END: add

extern "C" __global__ void sum_slots(const float* __restrict__ slots, float* __restrict__ out) {
    float sum = 0.0f;
    for (unsigned int s = threadIdx.x; s < SLOTS; s += blockDim.x) {
        sum += slots[s];
    }
    float total = block_sum(sum);
    if (threadIdx.x == 0) {
        *out = total;
    }
}
