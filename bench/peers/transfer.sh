#!/usr/bin/env bash
# Times the host-device copy peers of one direction (cudaMemcpyAsync and
# torch, pinned and pageable) with the runner's transfer method:
# transfer_peers.py runs in PROCESSES processes (default 8, the runner's
# Policy::processes) with a 1/PROCESSES share of the sampling budget each,
# and pool.py pools their samples (pooled.sh). Writes the pooled JSON lines
# to OUT.jsonl and prints a table.
# Usage: bench/peers/transfer.sh h2d|d2h OUT.jsonl
# Optional: SIZES (bytes, comma separated; default 4 KiB, 1 MiB, 64 MiB,
# 1 GiB, the sizes of kernels/host-device/), PROCESSES, RAW (a path that
# keeps every process's raw lines), PYTHON (python3).
set -euo pipefail

direction=${1:?usage: $0 h2d|d2h OUT.jsonl}
out=${2:?usage: $0 h2d|d2h OUT.jsonl}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start transfer.sh "$out"
sizes=${SIZES:-4096,1048576,67108864,1073741824}
export PYTHONUNBUFFERED=1

echo "transfer.sh: $direction, transfer_peers.py in $processes processes" >&2
peer_run transfer_peers.py "$python" "$here/transfer_peers.py" --direction "$direction" --sizes "$sizes"
peer_pool
peer_table --impls cuda_pinned,cuda_pageable,torch_pinned,torch_pageable --width 20 \
    --median 10.2f --gbs 5.1f --title "median time, us (GB/s)" --label bytes --label-width 11 --plain-n
exit $peer_status
