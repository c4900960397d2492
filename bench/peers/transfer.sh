#!/usr/bin/env bash
# Times the host-device copy peers of one direction (cudaMemcpyAsync and
# torch, pinned and pageable) with the runner's transfer method:
# transfer_peers.py runs in PROCESSES processes (default 8, the runner's
# Policy::processes) with a 1/PROCESSES share of the sampling budget each,
# and pool.py pools their samples. Writes the pooled JSON lines to OUT.jsonl
# and prints a table.
# Usage: bench/peers/transfer.sh h2d|d2h OUT.jsonl
# Optional: SIZES (bytes, comma separated; default 4 KiB, 1 MiB, 64 MiB,
# 1 GiB, the sizes of kernels/host-device/), PROCESSES, RAW (a path that
# keeps every process's raw lines), PYTHON (python3).
set -euo pipefail

direction=${1:?usage: $0 h2d|d2h OUT.jsonl}
out=${2:?usage: $0 h2d|d2h OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}
processes=${PROCESSES:-8}
sizes=${SIZES:-4096,1048576,67108864,1073741824}

mkdir -p "$(dirname "$out")"
: >"$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw="$tmp/raw.jsonl"
: >"$raw"
export PYTHONUNBUFFERED=1
status=0
echo "transfer.sh: $direction, transfer_peers.py in $processes processes" >&2
for ((p = 0; p < processes; p++)); do
    "$python" "$here/transfer_peers.py" --direction "$direction" --sizes "$sizes" \
        --processes "$processes" >>"$raw" || {
        echo "transfer.sh: transfer_peers.py process $p failed (rc $?)" >&2
        status=1
    }
done
if [[ -n ${RAW:-} ]]; then cp "$raw" "$RAW"; fi
(cd "$here" && "$python" pool.py "$raw") >"$out"
echo "transfer.sh: $(wc -l <"$out") JSON lines in $out" >&2
"$python" - "$out" <<'PY'
import json, sys
impls = ["cuda_pinned", "cuda_pageable", "torch_pinned", "torch_pageable"]
rows = {}
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        if r.get("impl") != "meta":
            rows.setdefault(r["n"], {})[r["impl"]] = r
print("median time, us (GB/s); '*' noisy, '!' failed check")
print(f"{'bytes':>11} " + " ".join(f"{i:>20}" for i in impls))
for n in sorted(rows):
    cells = []
    for i in impls:
        r = rows[n].get(i)
        if r is None or r.get("median_us") is None:
            cells.append(f"{'-':>20}")
            continue
        mark = ("*" if r.get("noisy") else "") + ("" if r.get("pass") else "!")
        cells.append(f"{r['median_us']:10.2f} ({r.get('gb_per_s') or 0:5.1f}){mark:<2}")
    print(f"{n:>11} " + " ".join(cells))
PY
exit $status
