// Just enough of CUDA to run the matmul chapter's kernels on the CPU for a
// correctness check: one std::thread per CUDA thread of a block, blocks
// one after another, __syncthreads() a std::barrier. Shared arrays are
// static (one block at a time). Not a model of timing.
#pragma once
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

struct uint3_ { unsigned x, y, z; };
inline thread_local uint3_ threadIdx, blockIdx;
inline uint3_ blockDim, gridDim;
inline std::barrier<>* cm_barrier = nullptr;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline float fmaf_(float a, float b, float c) { return std::fma(a, b, c); }
#define fmaf fmaf_
inline void __syncthreads() { cm_barrier->arrive_and_wait(); }

// Runs kernel over grid blocks of `block` threads.
template <class F>
void launch(unsigned grid, unsigned block, F kernel) {
    blockDim = {block, 1, 1};
    gridDim = {grid, 1, 1};
    for (unsigned bx = 0; bx < grid; ++bx) {
        std::barrier<> bar(block);
        cm_barrier = &bar;
        std::vector<std::thread> ts;
        ts.reserve(block);
        for (unsigned tx = 0; tx < block; ++tx)
            ts.emplace_back([=] {
                blockIdx = {bx, 0, 0};
                threadIdx = {tx, 0, 0};
                kernel();
            });
        for (auto& t : ts) t.join();
    }
}
