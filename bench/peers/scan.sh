#!/usr/bin/env bash
# Times the peers of the scan_f32 problem (CUB DeviceScan::InclusiveSum from
# cub_scan.cu, torch.cumsum and cupy.cumsum from scan_peers.py) with the
# runner's cold method: like the runner, each program runs in PROCESSES
# processes (default 8) with a share of the sampling budget, and pool.py
# pools their samples (pooled.sh). Writes the pooled JSON lines to the file
# given as $1 and prints a short table. Usage: bench/peers/scan.sh OUT.jsonl
# Optional: MIN_LOG2 / MAX_LOG2 (default 24 / 30, every second power of
# two), PROCESSES, RAW (a path that keeps every process's raw lines), NVCC
# (default /usr/local/cuda/bin/nvcc, else nvcc on PATH), PYTHON (python3).
set -euo pipefail

out=${1:?usage: $0 OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start scan.sh "$out"
min_log2=${MIN_LOG2:-24}
max_log2=${MAX_LOG2:-30}

peer_cub cub_scan --min-log2 "$min_log2" --max-log2 "$max_log2"
echo "scan.sh: running scan_peers.py in $processes processes" >&2
peer_run scan_peers.py "$python" "$here/scan_peers.py" --min-log2 "$min_log2" --max-log2 "$max_log2"
peer_pool
peer_table --impls cub,cub_i32,torch,cupy --width 20 --median 11.2f --gbs 4.0f \
    --title "median cold time, us (GB/s of 8 N bytes)" \
    --meta-keys source,gpu,driver,cuda_runtime,cub_version,torch,cupy,error
exit $peer_status
