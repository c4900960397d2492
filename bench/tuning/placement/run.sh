#!/usr/bin/env bash
# Eight processes of the placement probe at 2^22 and 2^24 (8 modules x 2
# partials buffers, 60 samples each pairing), one JSON line each, into $1.
set -u
out=${1:?usage: run.sh OUT.jsonl}
here="$(cd "$(dirname "$0")" && pwd)"
: > "$out"
for size in 2^22 2^24; do
  for p in 1 2 3 4 5 6 7 8; do
    python3 "$here/probe.py" "$size" 8 2 60 >> "$out" 2>> "$out.err" || echo "process $p failed" >> "$out.err"
  done
done
