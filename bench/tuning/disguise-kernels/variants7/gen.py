#!/usr/bin/env python3
"""Writes the probe files of this folder from the book's kernels.

Each variant is a book kernel with a few text substitutions, each of which
must apply exactly once (so a change to the book kernel fails loudly here),
and the book's headers inlined (files outside kernels/ cannot include them).
Run from anywhere: python3 gen.py
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe_gen  # noqa: E402  (../probe_gen.py)
from probe_gen import inline  # noqa: E402


def variant(base, name, what, subs):
    probe_gen.variant(HERE, base, name, what, subs)


# ---- Row per block, 2^10 to 2^14: the loads and stores torch.compile's
# Triton code carries cache hints on, with the same hints here.
HINTS = r'''
// Cache-hinted loads (PTX ISA: ld with an L1 eviction priority and an L2
// cache policy from createpolicy; sm_90 takes .L2::evict_* itself only on
// 256-bit loads). The policy is made again at each load (volatile, so it is
// not hoisted): one instruction, where a policy held across the kernel
// costs two registers and spilled.
// x, read once: L1 and L2 evict first, as Triton's eviction_policy='evict_first'.
__device__ __forceinline__ float4 load_once(const float4* p) {
    float4 v;
    asm volatile("{\n .reg .b64 pol;\n createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n"
                 " ld.global.L1::evict_first.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], pol;\n}"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
// weight and bias, read by every row: L1 and L2 evict last. Not volatile,
// so that the compiler may schedule these (volatile spilled a register).
__device__ __forceinline__ float4 load_kept(const float4* p) {
    float4 v;
    asm("{\n .reg .b64 pol;\n createpolicy.fractional.L2::evict_last.b64 pol, 1.0;\n"
                 " ld.global.nc.L1::evict_last.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], pol;\n}"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
'''

# The x load of layernorm_sums.cuh; round 1 measured these variants on the
# same code before the body moved into that header (x4[i] for load_x(&x4[i])).
X_LOAD = "float4 t = i < cols / 4 ? load_x(&x4[i]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);"

LN_X_CS = (X_LOAD, "float4 t = i < cols / 4 ? __ldcs(&x4[i]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);")
LN_X_EF = (X_LOAD, "float4 t = i < cols / 4 ? load_once(&x4[i]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);")
LN_HDR = ("#define WB_EARLY 1                         // of them, issued before the reductions\n",
          "#define WB_EARLY 1                         // of them, issued before the reductions\n" + HINTS)
LN_STORE = ("                y4[i] = make_float4(fmaf((v[4 * k] - mean) * rstd, w.x, b.x),\n"
            "                                    fmaf((v[4 * k + 1] - mean) * rstd, w.y, b.y),\n"
            "                                    fmaf((v[4 * k + 2] - mean) * rstd, w.z, b.z),\n"
            "                                    fmaf((v[4 * k + 3] - mean) * rstd, w.w, b.w));\n",
            "                __stcs(&y4[i], make_float4(fmaf((v[4 * k] - mean) * rstd, w.x, b.x),\n"
            "                                    fmaf((v[4 * k + 1] - mean) * rstd, w.y, b.y),\n"
            "                                    fmaf((v[4 * k + 2] - mean) * rstd, w.z, b.z),\n"
            "                                    fmaf((v[4 * k + 3] - mean) * rstd, w.w, b.w)));\n")
LN_WB_AHEAD = ("                wq[k % WB_AHEAD] = w4[c];\n                bq[k % WB_AHEAD] = b4[c];\n",
               "                wq[k % WB_AHEAD] = load_kept(&w4[c]);\n                bq[k % WB_AHEAD] = load_kept(&b4[c]);\n")
# the two prologue loops (the same text twice)
LN_WB_PROLOGUE = ("            wq[d] = w4[c];\n            bq[d] = b4[c];\n",
                  "            wq[d] = load_kept(&w4[c]);\n            bq[d] = load_kept(&b4[c]);\n", 2)


variant("layernorm_cached_sums.cu", "layernorm_hint_n",
        "(n) x loaded with __ldcs (ld.global.cs, streaming: evict first), nothing else changed.",
        [LN_X_CS])
variant("layernorm_cached_sums.cu", "layernorm_hint_o",
        "(o) x loaded as Triton's evict_first (L1::evict_first, L2 evict_first policy); weight and bias "
        "as its evict_last (L1::evict_last, L2 evict_last policy).",
        [LN_HDR, LN_X_EF, LN_WB_AHEAD, LN_WB_PROLOGUE])
variant("layernorm_cached_sums.cu", "layernorm_hint_p",
        "(p) (o) with streaming stores of y (__stcs, st.global.cs).",
        [LN_HDR, LN_X_EF, LN_WB_AHEAD, LN_WB_PROLOGUE, LN_STORE])
variant("layernorm_cached_sums.cu", "layernorm_hint_q",
        "(q) streaming stores of y (__stcs) alone.",
        [LN_STORE])

# softmax_cached_block at 2^10, where it ties torch.compile: (o)'s x load.
SM_X = ("float4 t = i < cols / 4 ? x4[i] : make_float4(PAD, PAD, PAD, PAD);",
        "float4 t = i < cols / 4 ? load_once(&x4[i]) : make_float4(PAD, PAD, PAD, PAD);")
SM_HDR = ("// ---- end ----\n", "// ---- end ----\n" + HINTS)  # after the inlined rows_softmax.cuh
variant("softmax_cached_block.cu", "softmax_hint_o",
        "(so) x loaded as Triton's evict_first (L1::evict_first, L2 evict_first policy).",
        [SM_HDR, SM_X])

# ---- A cluster per row, 2^16 and 2^18: weight and bias through a ring in
# shared memory (layernorm_wbring.cu.in, from layernorm_cluster_pipelined).
for ring, what in [(3, "(r3) a ring of 3 pairs: 96 bytes a thread beside the stash's 128, 224 KiB for two blocks."),
                   (2, "(r2) a ring of 2 pairs: 64 bytes a thread beside the stash's 128.")]:
    name = f"layernorm_wbring{ring}"
    text = (HERE / "layernorm_wbring.cu.in").read_text()
    text = (text.replace("@NAME@", name).replace("@RING@", str(ring))
            .replace("@SHARED@", str(128 + 32 * ring)).replace("@WHAT@", "This file " + what))
    (HERE / f"{name}.cu").write_text(inline(text))
variant("layernorm_cached_sums.cu", "layernorm_hint_x",
        "(x) x loaded as Triton's evict_first (L1::evict_first, L2 evict_first policy), weight and bias as in the book.",
        [LN_HDR, LN_X_EF])

# ---- layernorm_cached_sums with more threads a row and fewer values a
# thread: the plain block sums need no division, where the Chan merges of
# layernorm_cached_wide (the same 512 threads at 2^12) are divisions at
# every level, and variants6's (i) (Inductor's shape, the row served from L1
# the second time, Nsight: the DRAM bytes of one read) was 181 µs.
for vec, bounds, ahead, what in [
        (2, "1024", 2, "(s2) 2 float4 a thread: 512 threads a row at 2^12, 128 at 2^10, (rows up to 8192 floats)."),
        (2, "1024, 2", 1, "(s2b) (s2) held to 32 registers (__launch_bounds__(1024, 2)), so 4 blocks of 512 fill an SM at 2^12, with one weight/bias pair ahead (WB_AHEAD 1)."),
        (4, "__maxnreg__(40)", 1, "(s4b) (s4) held to 40 registers (__maxnreg__), so 6 blocks of 256 share an SM at 2^12, with one weight/bias pair ahead."),
        (4, "1024", 2, "(s4) 4 float4 a thread: 256 threads a row at 2^12, 1024 at 2^14 (rows up to 16384 floats).")]:
    name = f"layernorm_sums_v{vec}" + ("b" if bounds != "1024" else "")
    variant("layernorm_cached_sums.cu", name, what, [
        ("#define VEC_PER_THREAD 8                   // float4 loads per thread\n",
         f"#define VEC_PER_THREAD {vec}                   // float4 loads per thread\n"),
        ('block = "min(1024, 32 * ceil_div(cols, 1024))"',
         f'block = "min(1024, 32 * ceil_div(cols, {128 * vec}))"'),
        ("__launch_bounds__(1024)", bounds if bounds.startswith("__") else f"__launch_bounds__({bounds})"),
        ('sizes = ["2^10", "2^12", "2^14"]', 'sizes = ["2^10", "2^12", "2^14"]' if vec == 4 else 'sizes = ["2^10", "2^12"]'),
    ] + ([("#define WB_AHEAD 2 ", f"#define WB_AHEAD {ahead} ")] if ahead != 2 else []))

# ---- The cluster kernels at 2^16 and 2^18 with the stash's half of each
# slice brought in by one bulk copy (TMA, cp.async.bulk) instead of 16-byte
# cp.async per thread: Nsight Compute (probe-h200/ncu-*.csv, round 2) counts
# twice the L2 sectors for the cp.async half (12.58 M for the softmax's 8.39
# M of x) with L2 throughput at 75-81% of peak, above DRAM's 60-69%.
BULK = r'''
// One bulk copy (TMA) of `bytes` (a multiple of 16, both addresses 16-byte
// aligned) into this block's shared memory, completing on the mbarrier
// `bar`, which it initialises for the one arrival of the calling thread.
__device__ __forceinline__ void bulk_start(void* dst, const void* src, unsigned int bytes,
                                           unsigned long long* bar) {
    unsigned int b = static_cast<unsigned int>(__cvta_generic_to_shared(bar));
    unsigned int d = static_cast<unsigned int>(__cvta_generic_to_shared(dst));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(d), "l"(src), "r"(bytes), "r"(b) : "memory");
}
// Waits until the copy started on `bar` has landed (its first phase).
__device__ __forceinline__ void bulk_wait(unsigned long long* bar) {
    unsigned int b = static_cast<unsigned int>(__cvta_generic_to_shared(bar));
    asm volatile("{\n .reg .pred done;\n WAIT:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
                 " @!done bra WAIT;\n}\n" ::"r"(b) : "memory");
}
'''
CP_LOOP = '''#pragma unroll
        for (int k = 0; k < VEC_IN_SMEM; ++k) {
            unsigned int i = threadIdx.x + (VEC_IN_REGS + k) * blockDim.x;
            bool in = i < len / 4;
            copy16_async(&stash[k * blockDim.x + threadIdx.x], in ? &x4[i] : x4, in ? 16 : 0);
        }
        asm volatile("cp.async.commit_group;\\n" ::);
'''
TMA_LOOP = '''        // The stash's half of the slice, from float4 VEC_IN_REGS * blockDim.x
        // on, is one contiguous run, laid out in the stash as it is in x:
        // one bulk copy by thread 0.
        unsigned int stash_first = VEC_IN_REGS * blockDim.x;
        unsigned int stash_count =
            len / 4 > stash_first ? min(len / 4 - stash_first, VEC_IN_SMEM * blockDim.x) : 0;
        if (threadIdx.x == 0 && stash_count > 0) {
            bulk_start(stash, x4 + stash_first, 16 * stash_count, &stash_bar);
        }
'''
CP_WAIT = 'asm volatile("cp.async.wait_all;\\n" ::);'
TMA_WAIT = '''__syncthreads();  // thread 0 has initialised the barrier
        if (stash_count > 0) {
            bulk_wait(&stash_bar);
        }'''
for base, sub_extra in [("layernorm_cluster_pipelined.cu", [("        sum += stashed(k);\n",
                                                             "        sum += in_slice(4 * VEC_IN_REGS + k) ? stashed(k) : 0.0f;\n")]),
                        ("softmax_cluster_split.cu", [])]:
    for tag, regs, smem in [("a", 8, 8), ("b", 4, 12)]:
        stem = base.split("_")[0]
        name = f"{stem}_tma_{tag}"
        variant(base, name,
                f"({stem[0]}tma_{tag}) the stash's half by one bulk copy (TMA), {regs} float4 a thread in registers and {smem} in shared memory.",
                [("#define VEC_IN_REGS 8 ", f"#define VEC_IN_REGS {regs} "),
                 ("#define VEC_IN_SMEM 8 ", f"#define VEC_IN_SMEM {smem} "),
                 ('shared = "128 * block0"', f'shared = "{16 * smem} * block0"'),
                 ('extern "C" __global__', BULK + '\nextern "C" __global__'),
                 ("    extern __shared__ float4 stash[];\n",
                  "    extern __shared__ float4 stash[];\n    __shared__ alignas(8) unsigned long long stash_bar;\n"),
                 (CP_LOOP, TMA_LOOP), (CP_WAIT, TMA_WAIT)] + sub_extra)

# ---- Fewer rows in flight (round 4): the one-block kernels hold whole rows,
# 8 float4 a thread loaded at once, so an SM has 128 KiB of x in flight at a
# row's start (8 blocks of 16 KiB at 2^12, 32 of 4 KiB at 2^10); Inductor's
# loop and the copy ceiling's kernel have one float4 a thread, 32 KiB an SM.
# Unused dynamic shared memory caps the blocks an SM at TARGET / (4 cols):
# an SM's 228 KiB (233472 B) over that many blocks, less the 1 KiB each
# block reserves and up to 1 KiB of the kernel's own static arrays.
for base, stem in [("layernorm_cached_sums.cu", "layernorm"), ("softmax_cached_block.cu", "softmax")]:
    for target_kib, expr in [(64, "max(57 * cols / 4, 2048) - 2048"), (96, "max(19 * cols / 2, 2048) - 2048")]:
        name = f"{stem}_inflight{target_kib}"
        block_line = 'block = "min(1024, 32 * ceil_div(cols, 1024))"\n'
        variant(base, name,
                f"(f{target_kib}) at most {target_kib} KiB of rows an SM: blocks an SM capped by unused shared memory ({expr} bytes a block).",
                [(block_line, block_line + f'shared = "{expr}"\n')])
