#!/usr/bin/env bash
# Builds the standalone probe of one_shot_flags.cu with nvcc and runs it on
# each GPU count given: the in-kernel meeting one-shot against the book's
# one-shot with its host barriers, under one timer (README.md beside this).
# Usage: bench/tuning/allreduce/flags/probe.sh OUTDIR [K ...]   (default K: 1)
# OUTDIR/allreduce-flags-<K>gpu.json is its report and .log its messages
# (the program itself is built in a temporary folder, not kept). NVCC (default nvcc) and ARCH (default
# native, the GPU at hand) choose the compiler and the target.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: probe.sh OUTDIR [K ...]}
shift
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
"${NVCC:-nvcc}" -std=c++17 -O2 -lineinfo -arch="${ARCH:-native}" -o "$build/probe_flags" "$here/probe_flags.cu"
status=0
for k in "${@:-1}"; do
    "$build/probe_flags" --gpus "$k" > "$out/allreduce-flags-${k}gpu.json" 2> "$out/allreduce-flags-${k}gpu.log" || {
        echo "probe_flags --gpus $k: exit $?, see $out/allreduce-flags-${k}gpu.log" >&2
        status=1
    }
done
exit $status
