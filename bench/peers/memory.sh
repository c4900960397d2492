#!/usr/bin/env bash
# Times the peers of one memory problem (bench/peers/memory_peers.py: the
# transpose, or the copy of the elementwise problem) with the runner's cold
# method: PROCESSES processes (default 8, the runner's Policy::processes),
# each with a 1/PROCESSES share of the sampling budget, pooled by pool.py.
# Writes the pooled JSON lines to OUT.jsonl and prints a table.
# Usage: bench/peers/memory.sh transpose|elementwise OUT.jsonl
# Optional: SIZES (memory_peers.py --sizes), PROCESSES, RAW (a path that
# keeps every process's raw lines), PYTHON (python3).
set -euo pipefail

problem=${1:?usage: $0 transpose|elementwise OUT.jsonl}
out=${2:?usage: $0 transpose|elementwise OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}
processes=${PROCESSES:-8}

mkdir -p "$(dirname "$out")"
: >"$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw="$tmp/raw.jsonl"
: >"$raw"
sizes=()
if [[ -n ${SIZES:-} ]]; then sizes=(--sizes "$SIZES"); fi

status=0
echo "memory.sh: $problem, memory_peers.py in $processes processes" >&2
for ((p = 0; p < processes; p++)); do
    "$python" "$here/memory_peers.py" --problem "$problem" "${sizes[@]}" --processes "$processes" >>"$raw" || {
        echo "memory.sh: memory_peers.py process $p failed (rc $?)" >&2
        status=1
    }
done
if [[ -n ${RAW:-} ]]; then cp "$raw" "$RAW"; fi
"$python" "$here/pool.py" "$raw" >"$out"

echo "memory.sh: $(wc -l <"$out") JSON lines in $out" >&2
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
    keys = ["source", "problem", "gpu", "driver", "cuda_runtime", "torch", "error"]
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
    print(f"{n:>12} " + " ".join(cells))
PY
exit $status
