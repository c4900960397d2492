// A CPU emulator of the CUDA features the scan kernels use, to test their
// logic without a GPU: every thread is a fiber (ucontext), the threads of a
// block run round-robin and stop at barriers and warp collectives; blocks
// run one after another, in launch order. Shared memory is `static`
// (one block at a time). Lab code only: not part of the book.
#pragma once
#include <ucontext.h>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(x)
#define __restrict__ __restrict

struct float4 { float x, y, z, w; };
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct uint3_ { unsigned int x, y, z; };

namespace emu {
enum Wait { RUN, BARRIER, COLLECTIVE, DONE };
struct Fiber {
    ucontext_t ctx;
    std::vector<char> stack;
    uint3_ tid;
    Wait state = RUN;
    // collective exchange
    int op = 0;
    unsigned long long in = 0;
    unsigned long long out = 0;
    int arg = 0;
};
inline ucontext_t sched_ctx;
inline std::vector<Fiber>* fibers = nullptr;
inline Fiber* current = nullptr;
inline uint3_ block_idx, block_dim, grid_dim;
inline std::function<void()> body;

inline void yield() { swapcontext(&current->ctx, &sched_ctx); }

inline void entry() {
    body();
    current->state = DONE;
    swapcontext(&current->ctx, &sched_ctx);
}

// Warp collective: every lane of the warp deposits `in`; the last to arrive
// computes every lane's `out`.
enum { SHFL_UP = 1, SHFL_IDX, SHFL_XOR, SHFL_DOWN, BALLOT, ANY, ALL };
inline unsigned long long collective(int op, unsigned long long in, int arg) {
    Fiber* me = current;
    me->op = op;
    me->in = in;
    me->arg = arg;
    me->state = COLLECTIVE;
    unsigned warp = me->tid.x / 32;
    std::vector<Fiber>& fs = *fibers;
    unsigned lo = warp * 32, hi = std::min<unsigned>(lo + 32, fs.size());
    bool all = true;
    for (unsigned i = lo; i < hi; ++i) {
        if (fs[i].state == DONE) { std::fprintf(stderr, "collective with an exited lane\n"); std::abort(); }
        if (fs[i].state != COLLECTIVE) all = false;
    }
    if (all) {
        unsigned width = hi - lo;
        for (unsigned i = lo; i < hi; ++i) {
            if (fs[i].op != op) { std::fprintf(stderr, "lanes at different collectives\n"); std::abort(); }
        }
        unsigned long long ballot = 0;
        for (unsigned i = lo; i < hi; ++i) if (fs[i].in) ballot |= 1ull << (i - lo);
        for (unsigned l = 0; l < width; ++l) {
            Fiber& f = fs[lo + l];
            int a = f.arg;
            switch (op) {
            case SHFL_UP: f.out = (int)l >= a ? fs[lo + l - a].in : f.in; break;
            case SHFL_DOWN: f.out = l + a < width ? fs[lo + l + a].in : f.in; break;
            case SHFL_IDX: f.out = fs[lo + (a & 31)].in; break;
            case SHFL_XOR: f.out = fs[lo + ((l ^ a) & 31)].in; break;
            case BALLOT: f.out = ballot; break;
            case ANY: f.out = ballot != 0; break;
            case ALL: f.out = ballot == ((width == 32) ? 0xffffffffull : ((1ull << width) - 1)); break;
            }
        }
        for (unsigned i = lo; i < hi; ++i) fs[i].state = RUN;
        // keep running this fiber
        return me->out;
    }
    yield();
    return me->out;
}

inline unsigned long long bits(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
inline float unbits(unsigned long long b) { unsigned u = (unsigned)b; float f; std::memcpy(&f, &u, 4); return f; }

// Runs `kernel` over a grid, blocks in order.
template <class F>
void launch(unsigned grid, unsigned block, F kernel) {
    grid_dim = {grid, 1, 1};
    block_dim = {block, 1, 1};
    body = kernel;
    for (unsigned b = 0; b < grid; ++b) {
        block_idx = {b, 0, 0};
        static std::vector<Fiber> fs;
        fs.resize(block);
        fibers = &fs;
        for (unsigned t = 0; t < block; ++t) {
            if (fs[t].stack.empty()) fs[t].stack.resize(32 * 1024);
            fs[t].state = RUN;
            fs[t].tid = {t, 0, 0};
            getcontext(&fs[t].ctx);
            fs[t].ctx.uc_stack.ss_sp = fs[t].stack.data();
            fs[t].ctx.uc_stack.ss_size = fs[t].stack.size();
            fs[t].ctx.uc_link = nullptr;
            makecontext(&fs[t].ctx, entry, 0);
        }
        for (;;) {
            bool progressed = false, all_done = true;
            for (auto& f : fs) {
                if (f.state == RUN) {
                    current = &f;
                    swapcontext(&sched_ctx, &f.ctx);
                    progressed = true;
                }
                if (f.state != DONE) all_done = false;
            }
            if (all_done) break;
            // Barrier: every live thread waits at it.
            bool barrier = true;
            for (auto& f : fs) if (f.state != BARRIER && f.state != DONE) barrier = false;
            if (barrier) {
                for (auto& f : fs) if (f.state == BARRIER) f.state = RUN;
                continue;
            }
            if (!progressed) { std::fprintf(stderr, "deadlock in block %u\n", b); std::abort(); }
        }
        fibers = nullptr;
    }
}
}  // namespace emu

#define threadIdx (emu::current->tid)
#define blockIdx (emu::block_idx)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)

inline void __syncthreads() { emu::current->state = emu::BARRIER; emu::yield(); }
inline void __threadfence() {}
inline float __shfl_up_sync(unsigned, float v, unsigned d) { return emu::unbits(emu::collective(emu::SHFL_UP, emu::bits(v), d)); }
inline float __shfl_down_sync(unsigned, float v, unsigned d) { return emu::unbits(emu::collective(emu::SHFL_DOWN, emu::bits(v), d)); }
inline float __shfl_sync(unsigned, float v, int src) { return emu::unbits(emu::collective(emu::SHFL_IDX, emu::bits(v), src)); }
inline float __shfl_xor_sync(unsigned, float v, int m) { return emu::unbits(emu::collective(emu::SHFL_XOR, emu::bits(v), m)); }
inline unsigned __ballot_sync(unsigned, int p) { return (unsigned)emu::collective(emu::BALLOT, p != 0, 0); }
inline int __any_sync(unsigned, int p) { return (int)emu::collective(emu::ANY, p != 0, 0); }
inline int __all_sync(unsigned, int p) { return (int)emu::collective(emu::ALL, p != 0, 0); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p += v; return o; }
inline float atomicAdd(float* p, float v) { float o = *p; *p += v; return o; }
inline unsigned __float_as_uint(float f) { return (unsigned)emu::bits(f); }
inline float __uint_as_float(unsigned u) { return emu::unbits(u); }
