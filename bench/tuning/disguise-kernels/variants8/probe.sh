#!/usr/bin/env bash
# Probe of layernorm_onebar (README.md) against layernorm_cached_sums, with
# the book's full method, on the GPU machine, from the repository root,
# cuda-runner on PATH (dist/bin after scripts/bundle):
#   PATH=$PWD/dist/bin:$PATH bench/tuning/disguise-kernels/variants8/probe.sh OUTDIR
# Nothing is written to results/. About 30 s.
set -u
OUT=${1:?usage: probe.sh OUTDIR (run from the repository root)}
V=bench/tuning/disguise-kernels/variants8
# shellcheck source=../probe-lib.sh
source "$(dirname "$0")/../probe-lib.sh"
python3 "$V/gen.py" || { say "gen.py failed"; exit 1; }
say "start; $(command -v cuda-runner)"
nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader >>"$LOG" 2>&1
measure onebar kernels/disguise/layernorm_cached_sums.cu "$V/layernorm_onebar_v2.cu" \
    "$V/layernorm_onebar_v8.cu"
say "done"
