#!/usr/bin/env bash
# Probe of the two-pass layer-norm variants in this folder (README.md),
# which read each row twice (the second time, we expected, from the caches), against
# layernorm_cached_block, at 2^10, 2^12 and 2^14, on the GPU machine, from
# the repository root, with cuda-runner on PATH (dist/bin after
# scripts/bundle) and CUDA at /usr/local/cuda:
#
#   PATH=$PWD/dist/bin:$PATH bench/tuning/disguise-kernels/variants6/probe.sh OUTDIR
#
# One `cuda-runner run` with the book's full method (8 processes per
# example, cold L2, the copy ceiling measured at each size) of the six
# row-per-block files at their three sizes, then one of the four cluster
# files at 2^16 and 2^18; neither writes to results/. About 100 s.
# OUTDIR/probe.log gets the runner's progress lines and a summary (median,
# % of the copy ceiling, the copy time that is of, spread, registers);
# OUTDIR/reread.json holds the full records.
set -u
OUT=${1:?usage: probe.sh OUTDIR (run from the repository root)}
V=bench/tuning/disguise-kernels/variants6
K=kernels/disguise
MEASURE_TIMEOUT_S=120
# shellcheck source=../probe-lib.sh
source "$(dirname "$0")/../probe-lib.sh"
# The probe files are generated, not committed.
bash "$(dirname "$0")/gen.sh" || { say "gen.sh failed"; exit 1; }

say "start; $(command -v cuda-runner)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,uuid --format=csv,noheader >>"$LOG" 2>&1
[[ ${ROUND:-1} == 1 ]] && measure reread "$K/layernorm_cached_block.cu" "$V/layernorm_reread_a.cu" "$V/layernorm_reread_b.cu" \
    "$V/layernorm_reread_c.cu" "$V/layernorm_reread_d.cu" "$V/layernorm_reread_e.cu"
[[ ${ROUND:-1} == 1 ]] && measure cluster "$K/layernorm_cluster_pipelined.cu" "$V/layernorm_reread_f.cu" \
    "$V/layernorm_reread_g.cu" "$V/layernorm_reread_h.cu"
# Round 2 (after inductor_ncu.sh): Inductor's shape (i, j) against
# variants4's best two (A early2sum, B warpsum), all in one call.
if [[ ${ROUND:-1} == 2 ]]; then
    measure inductor_shape "$V/layernorm_reread_i.cu" "$V/layernorm_reread_j.cu" \
        bench/tuning/disguise-kernels/variants4/layernorm_v4_early2sum.cu \
        bench/tuning/disguise-kernels/variants4/layernorm_v4_warpsum.cu
fi
# Round 3 (after the counters showed Inductor's second read served by L1):
# the same shapes with the loads Triton emits for its eviction policies.
if [[ ${ROUND:-1} == 3 ]]; then
    measure l1_hints "$V/layernorm_reread_k.cu" "$V/layernorm_reread_l.cu" "$V/layernorm_reread_m.cu" \
        "$K/layernorm_cached_sums.cu"
fi
say "done"
