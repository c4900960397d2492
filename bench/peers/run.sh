#!/usr/bin/env bash
# Times the peer reductions (CUB, torch.sum, cupy.sum) with the runner's cold
# method: like the runner, each program runs in PROCESSES processes (default
# 8, the runner's Policy::processes) with a share of the sampling budget, and
# pool.py pools their samples. Writes the pooled JSON lines to the file given
# as $1 and prints a short table. Usage: bench/peers/run.sh OUT.jsonl
# Optional: MIN_LOG2 / MAX_LOG2 (default 16 / 30) to time fewer sizes,
# PROCESSES, RAW (a path that keeps every process's raw lines),
# NVCC (default /usr/local/cuda/bin/nvcc, else nvcc on PATH), PYTHON (python3).
set -euo pipefail

out=${1:?usage: $0 OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
min_log2=${MIN_LOG2:-16}
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
    echo "run.sh: nvcc not found; skipping CUB" >&2
    status=1
else
    echo "run.sh: compiling cub_sum.cu with $nvcc" >&2
    if "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$tmp/cub_sum" "$here/cub_sum.cu"; then
        for ((p = 0; p < processes; p++)); do
            "$tmp/cub_sum" --min-log2 "$min_log2" --max-log2 "$max_log2" --processes "$processes" >>"$raw" || {
                echo "run.sh: cub_sum process $p failed (rc $?)" >&2
                status=1
            }
        done
    else
        echo "run.sh: compiling cub_sum.cu failed" >&2
        status=1
    fi
fi

echo "run.sh: running python_peers.py in $processes processes" >&2
for ((p = 0; p < processes; p++)); do
    "$python" "$here/python_peers.py" --min-log2 "$min_log2" --max-log2 "$max_log2" --processes "$processes" >>"$raw" || {
        echo "run.sh: python_peers.py process $p failed (rc $?)" >&2
        status=1
    }
done
if [[ -n ${RAW:-} ]]; then cp "$raw" "$RAW"; fi
"$python" "$here/pool.py" "$raw" >"$out"

echo "run.sh: $(wc -l <"$out") JSON lines in $out" >&2
"$python" - "$out" <<'EOF'
import json, sys

impls = ["cub", "cub_i32", "torch", "cupy"]
rows, metas = {}, []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    if r.get("impl") == "meta":
        metas.append(r)
    else:
        rows.setdefault(r["n"], {})[r["impl"]] = r
for m in metas:
    keys = ["source", "gpu", "driver", "cuda_runtime", "cub_version", "torch", "cupy", "l2_bytes", "error"]
    print("  ".join(f"{k}={m[k]}" for k in keys if m.get(k) is not None))
print("median cold time, us (GB/s); '*' noisy, '!' failed check")
print(f"{'N':>6} " + " ".join(f"{i:>18}" for i in impls))
for n in sorted(rows):
    cells = []
    for i in impls:
        r = rows[n].get(i)
        if r is None or r.get("median_us") is None:
            cells.append(f"{'-':>18}")
            continue
        mark = ("*" if r.get("noisy") else "") + ("" if r.get("pass") else "!")
        gbs = r.get("gb_per_s") or 0.0
        cells.append(f"{r['median_us']:9.2f} ({gbs:4.0f}){mark:<2}")
    print(f"2^{n.bit_length() - 1:<4} " + " ".join(cells))
EOF
exit $status
