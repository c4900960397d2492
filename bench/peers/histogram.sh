#!/usr/bin/env bash
# Times the peers of one byte-histogram problem with the runner's cold
# method: CUB's DeviceHistogram::HistogramEven (cub_histogram.cu, built with
# nvcc) and torch.bincount (histogram_peers.py), each in PROCESSES processes
# (default 8, the runner's Policy::processes) with a 1/PROCESSES share of
# the sampling budget, pooled by pool.py (pooled.sh). Writes the pooled JSON
# lines to OUT.jsonl and prints a table.
# Usage: bench/peers/histogram.sh histogram_u8|histogram_u8_skewed OUT.jsonl
# Optional: SIZES (log2 sizes, default 20,24,28: the chapter's), PROCESSES,
# RAW (a path that keeps every process's raw lines), NVCC (default
# /usr/local/cuda/bin/nvcc, else nvcc on PATH), PYTHON (python3).
set -euo pipefail

problem=${1:?usage: $0 histogram_u8|histogram_u8_skewed OUT.jsonl}
out=${2:?usage: $0 histogram_u8|histogram_u8_skewed OUT.jsonl}
case $problem in histogram_u8 | histogram_u8_skewed) ;; *) echo "unknown problem $problem" >&2; exit 2 ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/pooled.sh"
peer_start histogram.sh "$out"
sizes=${SIZES:-20,24,28}

peer_cub cub_histogram --problem "$problem" --sizes "$sizes"
echo "histogram.sh: $problem, histogram_peers.py in $processes processes" >&2
peer_run histogram_peers.py "$python" "$here/histogram_peers.py" --problem "$problem" --sizes "$sizes"
peer_pool
peer_table --width 22 --median 12.2f --gbs 5.0f --label n --label-width 12 \
    --meta-keys source,problem,gpu,driver,cuda_runtime,cub_version,torch,error
exit $peer_status
