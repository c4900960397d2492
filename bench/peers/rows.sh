#!/usr/bin/env bash
# Times the peers of one row-wise problem (torch eager and torch.compile,
# float32 and bf16) with the runner's cold method: rows_peers.py runs in
# PROCESSES processes (default 8, the runner's Policy::processes) with a
# 1/PROCESSES share of the sampling budget each, and pool.py pools their
# samples (pooled.sh). Writes the pooled JSON lines to OUT.jsonl, prints a table.
# Usage: bench/peers/rows.sh softmax_rows|layernorm_rows OUT.jsonl
# Optional: MIN_LOG2 / MAX_LOG2 (default 10 / 18: N = 2^10, 2^12, ..., 2^18),
# TOTAL_LOG2 (default 26: M = 2^26 / N rows), DTYPES (default f32,bf16),
# COMPILE_MODE (default `default`), PROCESSES, RAW (a path that keeps every
# process's raw lines), PYTHON (python3), TORCHINDUCTOR_CACHE_DIR (default: a
# fresh folder for this run, shared by its processes, so the first process
# compiles and the others load the compiled kernels).
set -euo pipefail

problem=${1:?usage: $0 softmax_rows|layernorm_rows OUT.jsonl}
out=${2:?usage: $0 softmax_rows|layernorm_rows OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start rows.sh "$out"
# One inductor cache for all the processes (FX graph cache, Triton kernels,
# autotuning results); fresh per run unless given, so the first process's
# compile time is a cold compile.
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-$tmp/inductor}
export TORCHINDUCTOR_FX_GRAPH_CACHE=1
export TORCHINDUCTOR_AUTOGRAD_CACHE=1
export PYTHONUNBUFFERED=1

# One process, its lines tagged with which process wrote them (for the
# compile-time summary below; anything on stdout that is not a JSON object
# is reported and dropped), and how long it took.
peer_process() {
    local label=$1 p=$2 t0 rc=0
    shift 2
    t0=$(date +%s%N)
    "$@" >"$tmp/p$p.jsonl" || {
        echo "rows.sh: $label process $p failed (rc $?)" >&2
        rc=1
    }
    "$python" -c 'import json,sys
for l in open(sys.argv[1]):
    try:
        r = json.loads(l)
        assert isinstance(r, dict)
    except Exception:
        if l.strip():
            print("rows.sh: not a JSON line, dropped: " + l.strip()[:200], file=sys.stderr)
        continue
    r["process"] = int(sys.argv[2]); print(json.dumps(r))' "$tmp/p$p.jsonl" "$p" >>"$raw" || rc=1
    echo "rows.sh: process $p took $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
    return $rc
}

echo "rows.sh: $problem, rows_peers.py in $processes processes, inductor cache $TORCHINDUCTOR_CACHE_DIR" >&2
peer_run rows_peers.py "$python" "$here/rows_peers.py" --problem "$problem" \
    --min-log2 "${MIN_LOG2:-10}" --max-log2 "${MAX_LOG2:-18}" --total-log2 "${TOTAL_LOG2:-26}" \
    --dtypes "${DTYPES:-f32,bf16}" --compile-mode "${COMPILE_MODE:-default}"
peer_pool
peer_table --impls torch,torch_compile,torch_bf16,torch_compile_bf16 --width 20 --median 10.2f \
    --gbs 5.0f --meta-keys source,problem,gpu,driver,torch,triton,compile_mode,error
# torch.compile's first call (compile or cache load), per process.
"$python" - "$raw" <<'PY'
import json, sys

by_proc = {}
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        if "compile_s" in r:
            by_proc.setdefault(r.get("process"), []).append((r["impl"], r["n"], r["compile_s"], r.get("inductor_cache", {})))
for p, runs in sorted(by_proc.items()):
    total = sum(c for _, _, c, _ in runs)
    hits = sum(ic.get("fxgraph_cache_hit", 0) for *_, ic in runs)
    misses = sum(ic.get("fxgraph_cache_miss", 0) for *_, ic in runs)
    each = " ".join(f"{c:.1f}" for _, _, c, _ in runs)
    print(f"compile, process {p}: {total:.1f} s over {len(runs)} shapes (FX graph cache {hits} hits, {misses} misses): {each}")
PY
exit $peer_status
