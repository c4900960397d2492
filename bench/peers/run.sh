#!/usr/bin/env bash
# Times the peer reductions (CUB, torch.sum, cupy.sum) with the runner's cold
# method: like the runner, each program runs in PROCESSES processes (default
# 8, the runner's Policy::processes) with a share of the sampling budget, and
# pool.py pools their samples (pooled.sh). Writes the pooled JSON lines to
# the file given as $1 and prints a short table. Usage: bench/peers/run.sh OUT.jsonl
# Optional: MIN_LOG2 / MAX_LOG2 (default 16 / 30) to time fewer sizes,
# PROCESSES, RAW (a path that keeps every process's raw lines),
# NVCC (default /usr/local/cuda/bin/nvcc, else nvcc on PATH), PYTHON (python3).
set -euo pipefail

out=${1:?usage: $0 OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start run.sh "$out"
min_log2=${MIN_LOG2:-16}
max_log2=${MAX_LOG2:-30}

peer_cub cub_sum --min-log2 "$min_log2" --max-log2 "$max_log2"
echo "run.sh: running python_peers.py in $processes processes" >&2
peer_run python_peers.py "$python" "$here/python_peers.py" --min-log2 "$min_log2" --max-log2 "$max_log2"
peer_pool
peer_table --impls cub,cub_i32,torch,cupy --width 18 --median 9.2f --gbs 4.0f \
    --meta-keys source,gpu,driver,cuda_runtime,cub_version,torch,cupy,l2_bytes,error
exit $peer_status
