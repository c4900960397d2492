#!/usr/bin/env bash
# Writes the variants of layernorm_reread.cu.in, the book's header
# kernels/disguise/rows_layernorm.cuh inlined (a file outside kernels/
# cannot include it).
set -euo pipefail
cd "$(dirname "$0")"
# VEC is float4 a thread a step, or FIRST/SECOND for the two passes apart.
gen() { # name vec hints maxblock minblocks what [cluster]
    python3 - "$@" <<'PY'
import sys
sys.path.insert(0, "..")
from probe_gen import inline  # ../probe_gen.py
name, vec, hints, maxb, minb, what = sys.argv[1:7]
cluster = sys.argv[7] if len(sys.argv) > 7 else None
t = open("layernorm_reread_cluster.cu.in" if cluster else "layernorm_reread.cu.in").read()
t = t.replace("@CLUSTER@", cluster or "")
vec, _, vec2 = vec.partition("/")
t = t.replace("@NAME@", name).replace("@VEC@", vec).replace("@HINTS@", hints).replace("@WHAT@", what).replace("@MAXB@", maxb).replace("@MINB@", minb)
t = inline(t)
if vec2:
    t = t.replace('#ifndef VEC2', f'#define VEC2 {vec2}\n#ifndef VEC2')
open(name + ".cu", "w").write(t)
PY
}
gen layernorm_reread_a 2 1 256 6 "This file (a): 2 float4 a thread a step, at most 256 threads a block, 6 blocks an SM (40 registers); L2 hints as Inductor's (evict_last, then evict_first)."
gen layernorm_reread_b 2 0 256 6 "This file (b): (a) with plain loads both times, no cache hints."
gen layernorm_reread_c 4 1 256 4 "This file (c): (a) with 4 float4 a thread a step, 4 blocks an SM (64 registers)."
gen layernorm_reread_d 1 1 1024 2 "This file (d): (a) with 1 float4 a thread a step, up to 1024 threads a block (32 registers)."
gen layernorm_reread_e 1 0 1024 2 "This file (e): (d) with plain loads both times, no cache hints."
gen layernorm_reread_f 2 1 512 2 "This file (f): 8 blocks a row, at most 512 threads a block, 2 blocks an SM, so at 2^18 about 33 MiB of x sits in L2 between the passes." 8
gen layernorm_reread_g 2 1 512 2 "This file (g): (f) with 16 blocks a row (a non-portable cluster size), 64 KiB slices, about 17 MiB in L2." 16
gen layernorm_reread_h 2 1 512 4 "This file (h): (f) with 4 blocks an SM (32 registers): twice the slices in flight, about 66 MiB, more than L2 holds at 2^18." 8
gen layernorm_reread_i 1 1 512 4 "This file (i): Inductor's autotuned shape at 2^12 (R0_BLOCK 2048, 16 warps, 32 registers, inductor-h200/configs.txt): 1 float4 a thread a step, 512 threads a block, 4 blocks an SM."
gen layernorm_reread_j 2/1 1 512 4 "This file (j): (i) with 2 float4 a thread a step in the first pass (at 2^12 both of a thread's float4 are requested before either is used), 1 in the second (VEC2, so that 32 registers do not spill)."
gen layernorm_reread_k 1 2 512 4 "This file (k): (i), Inductor's shape, with the loads Triton emits for its eviction policies (L1::evict_last with an L2 evict_last policy, then L1::evict_first with an L2 evict_first policy), so that the second read can find the row in L1, where Nsight Compute found Inductor's."
gen layernorm_reread_l 2/1 2 512 4 "This file (l): (j) with (k)'s loads."
gen layernorm_reread_m 2 2 256 6 "This file (m): (a) with (k)'s loads."
