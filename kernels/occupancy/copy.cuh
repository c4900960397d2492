// The copy every example of the occupancy chapter runs. A grid-stride loop
// over float4s whose trips are kept rolled (`#pragma unroll 1`): each trip
// issues LOADS float4 loads, then the LOADS stores that need them, so a
// thread has LOADS loads (16 bytes each) in flight at a time and never more.
// What changes between the examples is how many warps an SM holds at once,
// set by the launch (block size, a dynamic shared-memory pad the kernel never
// touches) or by the registers the kernel needs (HOLD, BOUNDS); the loop is
// the same in all of them but for LOADS. The pointers are not __restrict__,
// on purpose: a store might then overwrite what a later load reads, so the
// compiler keeps the loads and stores of a trip in the order written (all
// loads, then all stores) and cannot start the next trip's loads early.
//
// Each example file defines what it changes, then includes this file:
//   LOADS   float4 loads in flight per thread (default 1)
//   HOLD    values kept in registers across the loop (default 0: none)
//   BOUNDS  an attribute before the kernel's name, e.g. __launch_bounds__(128, 16)

#ifndef LOADS
#define LOADS 1
#endif
#ifndef HOLD
#define HOLD 0
#endif
#ifndef BOUNDS
#define BOUNDS
#endif

extern "C" __global__ void BOUNDS copy_occ(const float* x, float* y, unsigned int n) {
#if HOLD > 0
    // ANCHOR: hold
    // HOLD readings of the SM's clock, taken before the loop and combined
    // after it. A clock reading cannot be recomputed later, so the compiler
    // must keep every one of them for the whole loop: in a register, or
    // spilled to local memory when the registers may not grow.
    unsigned int held[HOLD];
#pragma unroll
    for (int k = 0; k < HOLD; ++k) {
        asm volatile("{ .reg .u32 c; mov.u32 c, %%clock; xor.b32 %0, c, %1; }"
                     : "=r"(held[k])
                     : "r"(threadIdx.x));
    }
    // ANCHOR_END: hold
#endif

    // ANCHOR: loop
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    unsigned int n4 = n / 4;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
    for (; i + (LOADS - 1) * stride < n4; i += LOADS * stride) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            v[k] = x4[i + k * stride];
        }
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            y4[i + k * stride] = v[k];
        }
    }
    // ANCHOR_END: loop
    // The float4s left over when LOADS > 1, one a trip.
#pragma unroll 1
    for (; i < n4; i += stride) {
        y4[i] = x4[i];
    }
    // The last n % 4 elements, one thread each.
    unsigned int t = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        y[t] = x[t];
    }

#if HOLD > 0
    // ANCHOR: use
    // The combination starts from a clock reading taken after the loop, so
    // that none of it can be computed before the loop ends.
    unsigned int mix;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(mix));
#pragma unroll
    for (int k = 0; k < HOLD; ++k) {
        mix = mix * 33u + held[k];
    }
    // Never true (sizes stop at 2^31): the store is there so that the
    // readings are used and the compiler may not drop them.
    if (n == 0xffffffffu) {
        y[0] = __uint_as_float(mix);
    }
    // ANCHOR_END: use
#endif
}
