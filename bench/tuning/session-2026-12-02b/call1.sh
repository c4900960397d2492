#!/usr/bin/env bash
# Call 1 (2026-12-02 session B): probes (placement, transpose), host-device
# and copy examples re-measured, then the part I peers, in one session.
set -u
cd "$(dirname "$0")/.."
export PATH=$PWD/dist/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
log=$OUT/call.log; t0=$(date +%s)
st() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$log"; }
pack() { tar czf "$OUT/results.tar.gz" results session-logs 2>/dev/null; }
mkdir -p session-logs
nvidia-smi -L > session-logs/gpu.txt 2>&1; st "$(head -1 session-logs/gpu.txt)"
{ command -v chromium chromium-browser google-chrome headless_shell; python3 -c "import playwright; print(playwright.__file__)"; ls -d /usr/lib/chromium* /opt/google 2>&1; } > session-logs/browser-check.txt 2>&1
st placement; timeout 90 bash bench/tuning/placement/run.sh session-logs/placement.jsonl
st transpose-probe; timeout 120 python3 bench/tuning/transpose/probe.py 60 > session-logs/transpose-probe.jsonl 2> session-logs/transpose-probe.err
pack
st "book auto (host-device 6, copies 3 forced stale)"
rm -f results/host-device/*.json results/coalescing/copy_tuned.json results/coalescing/copy_float4.json results/coalescing/copy.json
CUDA_MEASURED_MODE=auto timeout 400 scripts/book > session-logs/book-auto.log 2>&1; st "book rc=$?"
grep -E "^\[cuda\]" session-logs/book-auto.log | tail -15 | tee -a "$log"
pack
for problem in transfer_h2d transfer_d2h elementwise transpose; do
  left=$(( 560 - ($(date +%s) - t0) )); [[ $left -lt 40 ]] && { st "no time for peers $problem"; continue; }
  harness=$(python3 -c 'import tomllib,sys; print(tomllib.load(open("bench/peers/peers.toml","rb"))[sys.argv[1]]["harness"])' $problem)
  ours=$(python3 -c 'import tomllib,sys; o=tomllib.load(open("bench/peers/peers.toml","rb"))[sys.argv[1]]["ours"]; print(" ".join("--ours results/%s.json" % i for i in ([o] if isinstance(o,str) else o)))' $problem)
  st "peers $problem ($left s left)"
  RAW=session-logs/peers-raw-$problem.jsonl timeout $left $harness results/peers/$problem.jsonl > session-logs/peers-$problem.log 2>&1 || st "peers $problem failed"
  [[ -s results/peers/$problem.jsonl ]] && cuda-runner peers --same-session --problem $problem $ours --peers results/peers/$problem.jsonl > session-logs/$problem.json && cp session-logs/$problem.json results/peers/$problem.json
  pack
done
st done; pack
