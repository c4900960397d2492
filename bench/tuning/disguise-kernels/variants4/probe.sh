#!/usr/bin/env bash
# Probe of the round-2 layer-norm variants in this folder (README.md)
# against layernorm_cached_block, on the GPU machine, from the repository
# root, with cuda-runner on PATH (dist/bin after scripts/bundle) and CUDA at
# /usr/local/cuda:
#
#   PATH=$PWD/dist/bin:$PATH bench/tuning/disguise-kernels/variants4/probe.sh OUTDIR
#
# Every `cuda-runner run` is the book's full method (8 processes per
# example, cold L2, the copy ceiling measured at each size) and writes
# nothing to results/. All files here are measured at 2^10 and 2^12 (the
# base also at 2^14; warpsum only at 2^10), so each call's files share
# their prepared inputs; the calls are split only to keep each well under
# its `timeout 60` (round 1, variants3/probe-h200/probe.log: 5-7.5 s per
# example, about 17-20 s per call of three). The whole script should take
# about 70 s, at most 120 s: the two Nsight Compute lines at the end are
# skipped when less time is left than they may take.
#
# OUTDIR/probe.log gets the runner's progress lines and, per call, a
# summary (median, % of the copy ceiling, the copy time that is of, spread,
# registers); OUTDIR/<call>.json holds the full records.
set -u
OUT=${1:?usage: probe.sh OUTDIR (run from the repository root)}
V=bench/tuning/disguise-kernels/variants4
V3=bench/tuning/disguise-kernels/variants3
K=kernels/disguise
NCU=${NCU:-/usr/local/cuda/bin/ncu}
[[ -x $NCU ]] || NCU=$(command -v ncu || echo "$NCU")
# shellcheck source=../probe-lib.sh
source "$(dirname "$0")/../probe-lib.sh"

say "start; $(command -v cuda-runner)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >>"$LOG" 2>&1

# The base, round 1's two small wins (re-measured in this session, so A's
# sum can be read against its parts), and A, their combination.
measure base "$K/layernorm_cached_block.cu" "$V3/layernorm_cached_wb_early.cu" \
    "$V3/layernorm_cached_twosum.cu" "$V/layernorm_v4_early2sum.cu"
# B (one-warp rows reduce by shuffles alone), C (static bodies for the two
# timed shapes), D (Inductor's 8 warps a row at 2^12, 48 registers).
measure chain "$V/layernorm_v4_warpsum.cu" "$V/layernorm_v4_static.cu" "$V/layernorm_v4_half48.cu"
# E: resident blocks prefetching their next row into shared memory.
measure prefetch "$V/layernorm_v4_prefetch.cu"

# Optional: Nsight Compute counters of the base and of E at 2^12, one
# launch each: DRAM throughput, occupancy and long-scoreboard stalls, to
# see whether the prefetch keeps DRAM busier.
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__t_sector_hit_rate.pct,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,\
lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__maximum_warps_per_active_cycle_pct,launch__waves_per_multiprocessor,launch__registers_per_thread,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
profile() {
    local file=$1 size=$2 limit=$3
    if [[ ! -x $NCU ]]; then
        say "ncu: $NCU not found, skipped"
        return
    fi
    if ((SECONDS + limit > 115)); then
        say "ncu $file $size: skipped, $SECONDS s gone"
        return
    fi
    say "ncu $file --size $size"
    timeout "$limit" "$NCU" --clock-control none --csv -k regex:layernorm --metrics "$METRICS" \
        "$(command -v cuda-runner)" launch-once "$file" --size "$size" >>"$LOG" 2>&1
    say "ncu: exit $?"
}
profile "$V/layernorm_v4_prefetch.cu" 2^12 20
profile "$K/layernorm_cached_block.cu" 2^12 20
say "done"
