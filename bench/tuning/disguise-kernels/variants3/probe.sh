#!/usr/bin/env bash
# Probe of the layer-norm variants in this folder against their bases, on
# the GPU machine, from the repository root, with cuda-runner on PATH
# (dist/bin after scripts/bundle) and CUDA at /usr/local/cuda:
#
#   PATH=$PWD/dist/bin:$PATH bench/tuning/disguise-kernels/variants3/probe.sh OUTDIR
#
# Every `cuda-runner run` is the book's full method (8 processes per
# example, cold L2, the copy ceiling measured at each size) and writes
# nothing to results/. Files measured in one call share their prepared
# inputs, so each call groups the examples of one row-length range. Each
# call runs under `timeout 60` (estimated 15-30 s each from
# bench/tuning/session-2026-12-01b/book-run1.log: about 3 s per example
# plus 2 s per size) and the script goes on when one fails. The whole
# script should take about 2 minutes, at most 200 s: the two Nsight Compute
# lines at the end are skipped when less time is left than they may take.
#
# OUTDIR/probe.log gets the runner's progress lines and, per call, a
# summary (median, % of the copy ceiling, the copy time that is of, spread,
# registers); OUTDIR/<call>.json holds the full records.
set -u
OUT=${1:?usage: probe.sh OUTDIR (run from the repository root)}
V=bench/tuning/disguise-kernels/variants3
V2=bench/tuning/disguise-kernels/variants2
K=kernels/disguise
NCU=${NCU:-/usr/local/cuda/bin/ncu}
[[ -x $NCU ]] || NCU=$(command -v ncu || echo "$NCU")
# shellcheck source=../probe-lib.sh
source "$(dirname "$0")/../probe-lib.sh"

say "start; $(command -v cuda-runner)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >>"$LOG" 2>&1

# 2^10 and 2^12 (and 2^14 for the base and the combination): against
# layernorm_cached_block.
measure short1 "$K/layernorm_cached_block.cu" \
    "$V/layernorm_cached_wb_early.cu" "$V/layernorm_cached_stream.cu"
measure short2 "$V/layernorm_cached_twosum.cu" "$V/layernorm_cached_half.cu" \
    "$V/layernorm_cached_combo.cu"
# 2^12 and 2^14: half of each thread's values in shared memory.
measure split "$V/layernorm_block_split.cu" "$V/layernorm_block_split_wbpipe.cu"
# 2^16 and 2^18: against layernorm_cluster_split, and the diagnostic
# without weight and bias (declared wrong: its check fails, its time counts).
measure long1 "$K/layernorm_cluster_split.cu" \
    "$V/layernorm_cluster_split_wbpipe.cu" "$V/layernorm_cluster_split_wbpipe4.cu"
measure long2 "$K/layernorm_welford_block.cu" "$V2/layernorm_cluster_split_noaffine.cu"

# Optional: Nsight Compute counters of the two bases, one launch each, to
# see where the weight and bias loads hit (L1, L2) and the waves.
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__t_sector_hit_rate.pct,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,\
lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__maximum_warps_per_active_cycle_pct,launch__waves_per_multiprocessor,launch__registers_per_thread,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
profile() {
    local file=$1 size=$2 limit=$3
    if [[ ! -x $NCU ]]; then
        say "ncu: $NCU not found, skipped"
        return
    fi
    if ((SECONDS + limit > 195)); then
        say "ncu $file $size: skipped, $SECONDS s gone"
        return
    fi
    say "ncu $file --size $size"
    timeout "$limit" "$NCU" --clock-control none --csv -k regex:layernorm --metrics "$METRICS" \
        "$(command -v cuda-runner)" launch-once "$file" --size "$size" >>"$LOG" 2>&1
    say "ncu: exit $?"
}
profile "$K/layernorm_cached_block.cu" 2^12 20
profile "$K/layernorm_cluster_split.cu" 2^18 20
say "done"
