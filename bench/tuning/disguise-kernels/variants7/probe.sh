#!/usr/bin/env bash
# Probe of this folder's variants (README.md) with the book's full method
# (8 processes per example, cold L2, the copy ceiling measured at each
# size), on the GPU machine, from the repository root, with cuda-runner on
# PATH (dist/bin after scripts/bundle) and CUDA at /usr/local/cuda:
#
#   PATH=$PWD/dist/bin:$PATH bench/tuning/disguise-kernels/variants7/probe.sh OUTDIR
#
# Nothing is written to results/. About 120 s. OUTDIR/probe.log gets the
# runner's progress lines and a summary per call; OUTDIR/NAME.json the records;
# OUTDIR/ncu-*.csv Nsight Compute's counters of single launches.
set -u
OUT=${1:?usage: probe.sh OUTDIR (run from the repository root)}
V=bench/tuning/disguise-kernels/variants7
V6=bench/tuning/disguise-kernels/variants6
K=kernels/disguise
MEASURE_TIMEOUT_S=150
# shellcheck source=../probe-lib.sh
source "$(dirname "$0")/../probe-lib.sh"
# The probe files are generated, not committed.
python3 "$V/gen.py" || { say "gen.py failed"; exit 1; }
bash "$V6/gen.sh" || { say "variants6/gen.sh failed"; exit 1; }  # round 1 measures three of its files
# ncu_at SIZE METRICS FILE...: one launch of each file at SIZE under Nsight
# Compute, counters into OUT/ncu-NAME.csv and the log.
ncu_at() {
    local size=$1 metrics=$2 f b
    shift 2
    for f in "$@"; do
        b=$(basename "$f" .cu)
        say "ncu $b $size"
        timeout 60 ncu --clock-control none --csv --metrics "$metrics" -k "regex:$b" \
            cuda-runner launch-once "$f" --size "$size" >"$OUT/ncu-$b.csv" 2>&1
        grep '^"0"' "$OUT/ncu-$b.csv" | awk -F'","' '{print $13" = "$15}' | tr -d '"' >>"$LOG"
    done
}

say "start; $(command -v cuda-runner)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,uuid --format=csv,noheader >>"$LOG" 2>&1
# Round 4 (ROUND=4): fewer rows in flight an SM.
if [[ ${ROUND:-1} == 4 ]]; then
    measure inflight "$K/layernorm_cached_sums.cu" "$V/layernorm_inflight64.cu" "$V/layernorm_inflight96.cu" \
        "$K/softmax_cached_block.cu" "$V/softmax_inflight64.cu" "$V/softmax_inflight96.cu"
    say "done"
    exit 0
fi
# Round 3 (ROUND=3): the cluster kernels with the stash filled by one bulk copy.
if [[ ${ROUND:-1} == 3 ]]; then
    measure tma_ln "$K/layernorm_cluster_pipelined.cu" "$V/layernorm_tma_a.cu" "$V/layernorm_tma_b.cu"
    measure tma_softmax "$K/softmax_cluster_split.cu" "$V/softmax_tma_a.cu" "$V/softmax_tma_b.cu"
    M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem
    ncu_at 2^18 "$M" "$V/layernorm_tma_a.cu" "$V/layernorm_tma_b.cu" "$V/softmax_tma_a.cu"
    say "done"
    exit 0
fi
# Round 2 (ROUND=2): cached_sums with more threads a row; Nsight Compute's
# L2 and occupancy counters of the 2^18 cluster kernels.
if [[ ${ROUND:-1} == 2 ]]; then
    measure sums "$K/layernorm_cached_sums.cu" "$V/layernorm_sums_v2.cu" "$V/layernorm_sums_v2b.cu" \
        "$V/layernorm_sums_v4.cu" "$V/layernorm_sums_v4b.cu"
    M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size
    ncu_at 2^18 "$M" "$K/layernorm_cluster_pipelined.cu" bench/tuning/disguise-kernels/variants2/layernorm_cluster_split_noaffine.cu \
        "$V/layernorm_wbring2.cu" "$V/layernorm_wbring3.cu" "$K/softmax_cluster_split.cu"
    say "done"
    exit 0
fi
measure hints "$K/layernorm_cached_sums.cu" "$V/layernorm_hint_n.cu" "$V/layernorm_hint_x.cu" \
    "$V/layernorm_hint_o.cu" "$V/layernorm_hint_p.cu" "$V/layernorm_hint_q.cu"
measure softmax "$K/softmax_cached_block.cu" "$V/softmax_hint_o.cu"
measure ring "$K/layernorm_cluster_pipelined.cu" "$V/layernorm_wbring3.cu" "$V/layernorm_wbring2.cu"
# variants6 round 3: Inductor's shape with Triton's L1 hints
measure l1_hints "$V6/layernorm_reread_k.cu" "$V6/layernorm_reread_l.cu" "$V6/layernorm_reread_m.cu"
# Where the second read of variants6 (i) and (k) is served, beside cached_sums.
if command -v ncu >/dev/null; then
    M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers,launch__registers_per_thread
    ncu_at 2^12 "$M" "$V6/layernorm_reread_i.cu" "$V6/layernorm_reread_k.cu" "$K/layernorm_cached_sums.cu" "$V/layernorm_hint_o.cu"
fi
say "done"
