#!/usr/bin/env bash
# Probe of the cluster-of-16 layer-norm variants in this folder (README.md)
# against layernorm_cluster_pipelined, at 2^16 and 2^18, on the GPU machine, from the repository
# root, with cuda-runner on PATH (dist/bin after scripts/bundle) and CUDA at
# /usr/local/cuda:
#
#   PATH=$PWD/dist/bin:$PATH bench/tuning/disguise-kernels/variants5/probe.sh OUTDIR
#
# One `cuda-runner run` with the book's full method (8 processes per
# example, cold L2, the copy ceiling measured at each size) of the four
# files at their two sizes; it writes nothing to results/. About 40 s.
# OUTDIR/probe.log gets the runner's progress lines and a summary (median,
# % of the copy ceiling, the copy time that is of, spread, registers);
# OUTDIR/c16.json holds the full records.
set -u
OUT=${1:?usage: probe.sh OUTDIR (run from the repository root)}
V=bench/tuning/disguise-kernels/variants5
K=kernels/disguise
MEASURE_TIMEOUT_S=120
# shellcheck source=../probe-lib.sh
source "$(dirname "$0")/../probe-lib.sh"
# The probe files are generated, not committed.
python3 "$(dirname "$0")/gen.py" || { say "gen.py failed"; exit 1; }

say "start; $(command -v cuda-runner)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,uuid --format=csv,noheader >>"$LOG" 2>&1
measure c16 "$K/layernorm_cluster_pipelined.cu" "$V/layernorm_c16_pipelined.cu" \
    "$V/layernorm_c16_wb4.cu" "$V/layernorm_c16_smem.cu"
# softmax_cached_block made persistent with the next row prefetched (the
# softmax twin of variants4's layernorm_v4_prefetch), at 2^10 and 2^12.
measure softmax "$K/softmax_cached_block.cu" "$V/softmax_v4_prefetch.cu"
say "done"
