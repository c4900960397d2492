#!/usr/bin/env bash
# Times the peers of the scan_f32 problem (CUB DeviceScan::InclusiveSum from
# cub_scan.cu, torch.cumsum and cupy.cumsum from scan_peers.py) with the
# runner's cold method: like the runner, each program runs in PROCESSES
# processes (default 8) with a share of the sampling budget, and pool.py
# pools their samples. Writes the pooled JSON lines to the file given as $1
# and prints a short table. Usage: bench/peers/scan.sh OUT.jsonl
# Optional: MIN_LOG2 / MAX_LOG2 (default 24 / 30, every second power of
# two), PROCESSES, RAW (a path that keeps every process's raw lines), NVCC
# (default /usr/local/cuda/bin/nvcc, else nvcc on PATH), PYTHON (python3).
set -euo pipefail

out=${1:?usage: $0 OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
min_log2=${MIN_LOG2:-24}
max_log2=${MAX_LOG2:-30}
python=${PYTHON:-python3}
processes=${PROCESSES:-8}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [[ ! -x $nvcc ]]; then nvcc=$(command -v nvcc || true); fi

mkdir -p "$(dirname "$out")"
: >"$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw="$tmp/raw.jsonl"
: >"$raw"

# Each step's failure is recorded, not fatal, so one peer's results survive
# another's failure; the script still exits non-zero if any step failed.
status=0

if [[ -z $nvcc ]]; then
    echo "scan.sh: nvcc not found; skipping CUB" >&2
    status=1
else
    echo "scan.sh: compiling cub_scan.cu with $nvcc" >&2
    if "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$tmp/cub_scan" "$here/cub_scan.cu"; then
        for ((p = 0; p < processes; p++)); do
            "$tmp/cub_scan" --min-log2 "$min_log2" --max-log2 "$max_log2" --processes "$processes" >>"$raw" || {
                echo "scan.sh: cub_scan process $p failed (rc $?)" >&2
                status=1
            }
        done
    else
        echo "scan.sh: compiling cub_scan.cu failed" >&2
        status=1
    fi
fi

echo "scan.sh: running scan_peers.py in $processes processes" >&2
for ((p = 0; p < processes; p++)); do
    "$python" "$here/scan_peers.py" --min-log2 "$min_log2" --max-log2 "$max_log2" --processes "$processes" >>"$raw" || {
        echo "scan.sh: scan_peers.py process $p failed (rc $?)" >&2
        status=1
    }
done
if [[ -n ${RAW:-} ]]; then cp "$raw" "$RAW"; fi
"$python" "$here/pool.py" "$raw" >"$out"

echo "scan.sh: $(wc -l <"$out") JSON lines in $out" >&2
"$python" - "$out" <<'PY'
import json, sys

impls = ["cub", "cub_i32", "torch", "cupy"]
rows, metas = {}, []
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        if r.get("impl") == "meta":
            metas.append(r)
        else:
            rows.setdefault(r["n"], {})[r["impl"]] = r
for m in metas:
    keys = ["source", "gpu", "driver", "cuda_runtime", "cub_version", "torch", "cupy", "error"]
    print("  ".join(f"{k}={m[k]}" for k in keys if m.get(k) is not None))
print("median cold time, us (GB/s of 8 N bytes); '*' noisy, '!' failed check")
print(f"{'N':>6} " + " ".join(f"{i:>20}" for i in impls))
for n in sorted(rows):
    cells = []
    for i in impls:
        r = rows[n].get(i)
        if r is None or r.get("median_us") is None:
            cells.append(f"{'-':>20}")
            continue
        mark = ("*" if r.get("noisy") else "") + ("" if r.get("pass") else "!")
        cells.append(f"{r['median_us']:11.2f} ({r.get('gb_per_s') or 0:4.0f}){mark:<2}")
    print(f"2^{n.bit_length() - 1:<4} " + " ".join(cells))
PY
exit $status
