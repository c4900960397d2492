#!/usr/bin/env bash
# Times the peers of matmul_f32 (bench/peers/matmul_peers.py: cuBLAS SGEMM
# through torch.mm, TF32 off) with the runner's cold method: PROCESSES
# processes (default 8, the runner's Policy::processes), each with a
# 1/PROCESSES share of the sampling budget, pooled by pool.py (pooled.sh).
# Writes the pooled JSON lines to OUT.jsonl and prints a table.
# Usage: bench/peers/matmul.sh OUT.jsonl
# Optional: SIZES (matmul_peers.py --sizes, square sides), PROCESSES, RAW
# (a path that keeps every process's raw lines), PYTHON (python3).
set -euo pipefail

out=${1:?usage: $0 OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start matmul.sh "$out"

echo "matmul.sh: matmul_peers.py in $processes processes" >&2
peer_run matmul_peers.py "$python" "$here/matmul_peers.py" "${peer_sizes[@]}"
peer_pool
"$python" - "$out" <<'PY'
import json, sys

for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)
    if r.get("impl") == "meta":
        keys = ["source", "gpu", "driver", "cuda_runtime", "torch", "cublas", "allow_tf32",
                "float32_matmul_precision", "error"]
        print("  ".join(f"{k}={r[k]}" for k in keys if r.get(k) is not None))
        continue
    d = r.get("dims", {})
    mark = ("*" if r.get("noisy") else "") + ("" if r.get("pass") else "!")
    med = r.get("median_us")
    print(f"{r['impl']:<10} M=N=K={d.get('M')}: "
          + (f"{med:10.1f} us  {r.get('tflops') or 0:6.2f} TFLOP/s {mark}" if med else "no timing"))
PY
exit $peer_status
