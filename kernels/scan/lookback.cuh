// The decoupled look-back of Merrill and Garland (2016), as the book's
// single-pass scans use it. Each tile t has one 64-bit status word: the
// high 32 bits say what the tile has published, the low 32 bits hold the
// float it published. One aligned 64-bit store writes both halves at once
// and one 64-bit load reads both, so a reader that sees the flag sees the
// value with it: no fence between the two, and one load per tile looked at.
// The words start at 0 (NOTHING) in every run.

#include "warp.cuh"

// ANCHOR: word
#define NOTHING 0u
#define AGGREGATE 1u  // the value is the sum of tile t alone
#define PREFIX 2u     // the value is the sum of tiles 0 to t

// Writes tile t's status word: what it publishes, and the value.
__device__ __forceinline__ void publish(unsigned long long* status, unsigned int t, unsigned int what,
                                        float value) {
    const unsigned long long word =
        (static_cast<unsigned long long>(what) << 32) | __float_as_uint(value);
    *reinterpret_cast<volatile unsigned long long*>(status + t) = word;
}

// Reads tile p's status word; volatile, so every call is a load from the
// memory system and not a register the compiler kept.
__device__ __forceinline__ unsigned long long peek(const unsigned long long* status, unsigned int p) {
    return *reinterpret_cast<const volatile unsigned long long*>(status + p);
}

__device__ __forceinline__ unsigned int flag_of(unsigned long long word) {
    return static_cast<unsigned int>(word >> 32);
}

__device__ __forceinline__ float value_of(unsigned long long word) {
    return __uint_as_float(static_cast<unsigned int>(word));
}
// ANCHOR_END: word

// What a look-back does before it reads again a window that is not ready:
// nothing, unless the including file asks the warp to sleep NAP_NS
// nanoseconds (at most; `nanosleep` is a hint), which leaves the memory
// system to the loads of other blocks instead of a stream of repeated
// reads of the same status words.
#ifndef NAP_NS
#define NAP_NS 0
#endif
__device__ __forceinline__ void nap() {
    if (NAP_NS > 0) asm volatile("nanosleep.u32 %0;" ::"r"(static_cast<unsigned int>(NAP_NS)));
}

// The exclusive prefix of tile t >= 1 (the sum of tiles 0 to t - 1),
// looked back at by one thread, one tile at a time: it waits until tile p
// has published something, adds an aggregate and goes on to p - 1, or
// adds a prefix and stops.
__device__ float look_back_serial(const unsigned long long* status, unsigned int t) {
    float exclusive = 0.0f;
    for (unsigned int p = t - 1;; --p) {
        unsigned long long word;
        while (flag_of(word = peek(status, p)) == NOTHING) {
        }
        exclusive += value_of(word);
        if (flag_of(word) == PREFIX) return exclusive;
    }
}

// The same, looked back at by a whole warp, 32 tiles at a time: lane l
// reads tile p - l, the warp waits until all 32 have published something,
// and finds the nearest one (the lowest lane) that published a prefix.
// That lane and the lanes before it, all aggregates, are added up; if no
// lane holds a prefix, all 32 are, and the window moves 32 tiles back.
// Every lane of the warp calls it and gets the same sum.
// ANCHOR: warp
__device__ float look_back_warp(const unsigned long long* status, unsigned int t, unsigned int lane) {
    float exclusive = 0.0f;
    for (int window = static_cast<int>(t) - 1;; window -= 32) {
        const int p = window - static_cast<int>(lane);
        unsigned long long word;
        for (;;) {
            // Before tile 0 there is nothing to add: a prefix of 0.
            word = p >= 0 ? peek(status, p) : static_cast<unsigned long long>(PREFIX) << 32;
            if (!__any_sync(0xffffffffu, flag_of(word) == NOTHING)) break;
            nap();
        }
        const unsigned int prefixes = __ballot_sync(0xffffffffu, flag_of(word) == PREFIX);
        // The lanes up to the first that holds a prefix (all 32 if none).
        const unsigned int upto = prefixes ? (prefixes ^ (prefixes - 1)) : 0xffffffffu;
        exclusive += warp_total((upto >> lane) & 1u ? value_of(word) : 0.0f);
        if (prefixes) return exclusive;
    }
}
// ANCHOR_END: warp
