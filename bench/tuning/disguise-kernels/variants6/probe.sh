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
mkdir -p "$OUT"
LOG=$OUT/probe.log
V=bench/tuning/disguise-kernels/variants6
V3=bench/tuning/disguise-kernels/variants3
K=kernels/disguise
NCU=${NCU:-/usr/local/cuda/bin/ncu}
[[ -x $NCU ]] || NCU=$(command -v ncu || echo "$NCU")
SECONDS=0

say() { echo "=== [$SECONDS s] $*" >>"$LOG"; }

summary() {
    if command -v python3 >/dev/null; then
        python3 - "$1" >>"$LOG" 2>&1 <<'PY'
import json, sys
try:
    records = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"(no records: {e})")
    sys.exit(0)
print(f"{'example':<44} {'status':<8} {'n':>5} {'median us':>10} {'% copy':>7} {'copy us':>8} {'spread':>7} {'regs':>5}")
for r in records:
    regs = ",".join(str(v) for _, v in r.get("registers", [])) or "-"
    if not r.get("sizes"):
        print(f"{r['example']:<44} {r['status']:<8} {r.get('message', '')[:120]}")
        continue
    for i, s in enumerate(r["sizes"]):
        copy_us = s["bytes"] / (s["ceiling_gbs"] * 1e3) if s.get("ceiling_gbs") else float("nan")
        pct = s.get("pct_ceiling") or float("nan")
        print(f"{r['example'] if i == 0 else '':<44} {r['status'] if i == 0 else '':<8} {str(s['n']):>5} "
              f"{s['median_us']:>10.2f} {pct:>6.1f}% {copy_us:>8.2f} {100 * s['rel_spread']:>6.2f}% {regs if i == 0 else '':>5}")
    if r["status"] not in ("pass",):
        print(f"{'':<44} {r.get('message', '')[:160]}")
PY
    else
        cat "$1" >>"$LOG"
    fi
}

# One `cuda-runner run` of the files given, as call NAME.
measure() {
    local name=$1
    shift
    say "$name: cuda-runner run $*"
    timeout 120 cuda-runner run --json "$@" >"$OUT/$name.json" 2>>"$LOG"
    say "$name: exit $?"
    summary "$OUT/$name.json"
}

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
