#!/usr/bin/env bash
# Call 3: the memory-hierarchy chapter's six walks again in one session (its
# page compares chase with chase_ptr and chase_far, measured until now on two
# GPUs), then `cuda-runner serve` in bubblewrap end to end (e2e.py, every
# guard size recorded).
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02d/lib.sh
rm -f results/memory-hierarchy/*.json
book 3 100
st "serve e2e ($(left) s left)"
rm -rf /tmp/bw && dpkg -x dist/bubblewrap_*.deb /tmp/bw
/tmp/bw/usr/bin/bwrap --unshare-user --unshare-net --ro-bind / / true > call-logs/sandbox-check.txt 2>&1 && echo sandbox-ok >> call-logs/sandbox-check.txt
CUDA_MEASURED_BWRAP=/tmp/bw/usr/bin/bwrap cuda-runner serve --book . --listen 127.0.0.1:8787 > call-logs/serve-bwrap.log 2>&1 &
spid=$!
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:8787/health > call-logs/health.json 2>/dev/null && break; sleep 1; done
timeout $(( $(left) - 20 )) python3 bench/tuning/run-service/e2e.py http://127.0.0.1:8787 10 > call-logs/e2e.json 2> call-logs/e2e.err; st "e2e rc=$?"
kill $spid; wait $spid 2>/dev/null
st done; pack
