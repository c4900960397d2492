#!/usr/bin/env bash
# Times the peers of one memory problem (bench/peers/memory_peers.py: the
# transpose, or the copy of the elementwise problem) with the runner's cold
# method: PROCESSES processes (default 8, the runner's Policy::processes),
# each with a 1/PROCESSES share of the sampling budget, pooled by pool.py
# (pooled.sh). Writes the pooled JSON lines to OUT.jsonl and prints a table.
# Usage: bench/peers/memory.sh transpose|elementwise OUT.jsonl
# Optional: SIZES (memory_peers.py --sizes), PROCESSES, RAW (a path that
# keeps every process's raw lines), PYTHON (python3).
set -euo pipefail

problem=${1:?usage: $0 transpose|elementwise OUT.jsonl}
out=${2:?usage: $0 transpose|elementwise OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start memory.sh "$out"

echo "memory.sh: $problem, memory_peers.py in $processes processes" >&2
peer_run memory_peers.py "$python" "$here/memory_peers.py" --problem "$problem" "${peer_sizes[@]}"
peer_pool
peer_table --width 22 --median 12.2f --gbs 5.0f --label n --label-width 12 --plain-n \
    --meta-keys source,problem,gpu,driver,cuda_runtime,torch,error
exit $peer_status
