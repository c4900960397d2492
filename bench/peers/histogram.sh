#!/usr/bin/env bash
# Times the peers of one byte-histogram problem with the runner's cold
# method: CUB's DeviceHistogram::HistogramEven (cub_histogram.cu, built with
# nvcc) and torch.bincount (histogram_peers.py), each in PROCESSES processes
# (default 8, the runner's Policy::processes) with a 1/PROCESSES share of
# the sampling budget, pooled by pool.py. Writes the pooled JSON lines to
# OUT.jsonl and prints a table.
# Usage: bench/peers/histogram.sh histogram_u8|histogram_u8_skewed OUT.jsonl
# Optional: SIZES (log2 sizes, default 20,24,28: the chapter's), PROCESSES,
# RAW (a path that keeps every process's raw lines), NVCC (default
# /usr/local/cuda/bin/nvcc, else nvcc on PATH), PYTHON (python3).
set -euo pipefail

problem=${1:?usage: $0 histogram_u8|histogram_u8_skewed OUT.jsonl}
out=${2:?usage: $0 histogram_u8|histogram_u8_skewed OUT.jsonl}
case $problem in histogram_u8 | histogram_u8_skewed) ;; *) echo "unknown problem $problem" >&2; exit 2 ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}
processes=${PROCESSES:-8}
sizes=${SIZES:-20,24,28}
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
    echo "histogram.sh: nvcc not found; skipping CUB" >&2
    status=1
else
    echo "histogram.sh: compiling cub_histogram.cu with $nvcc" >&2
    if "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$tmp/cub_histogram" "$here/cub_histogram.cu"; then
        for ((p = 0; p < processes; p++)); do
            "$tmp/cub_histogram" --problem "$problem" --sizes "$sizes" --processes "$processes" >>"$raw" || {
                echo "histogram.sh: cub_histogram process $p failed (rc $?)" >&2
                status=1
            }
        done
    else
        echo "histogram.sh: compiling cub_histogram.cu failed" >&2
        status=1
    fi
fi

echo "histogram.sh: $problem, histogram_peers.py in $processes processes" >&2
for ((p = 0; p < processes; p++)); do
    "$python" "$here/histogram_peers.py" --problem "$problem" --sizes "$sizes" --processes "$processes" >>"$raw" || {
        echo "histogram.sh: histogram_peers.py process $p failed (rc $?)" >&2
        status=1
    }
done
if [[ -n ${RAW:-} ]]; then cp "$raw" "$RAW"; fi
"$python" "$here/pool.py" "$raw" >"$out"

echo "histogram.sh: $(wc -l <"$out") JSON lines in $out" >&2
"$python" - "$out" <<'PY'
import json, sys

rows, metas = {}, []
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        if r.get("impl") == "meta":
            metas.append(r)
        else:
            rows.setdefault(r["n"], {})[r["impl"]] = r
impls = sorted({i for by in rows.values() for i in by})
for m in metas:
    keys = ["source", "problem", "gpu", "driver", "cuda_runtime", "cub_version", "torch", "error"]
    print("  ".join(f"{k}={m[k]}" for k in keys if m.get(k) is not None))
print("median cold time, us (GB/s); '*' noisy, '!' failed check")
print(f"{'n':>12} " + " ".join(f"{i:>22}" for i in impls))
for n in sorted(rows):
    cells = []
    for i in impls:
        r = rows[n].get(i)
        if r is None or r.get("median_us") is None:
            cells.append(f"{'-':>22}")
            continue
        mark = ("*" if r.get("noisy") else "") + ("" if r.get("pass") else "!")
        cells.append(f"{r['median_us']:12.2f} ({r.get('gb_per_s') or 0:5.0f}){mark:<2}")
    print(f"2^{n.bit_length() - 1:<10} " + " ".join(cells))
PY
exit $status
