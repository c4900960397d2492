#!/usr/bin/env bash
# Call 2: host-device (6), transposes (9) and copies (3) measured in one
# session, then their peers (elementwise, transpose, transfer_h2d/d2h).
set -u
cd "$(dirname "$0")/.."
export PATH=$PWD/dist/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
log=$OUT/call.log; t0=$(date +%s)
st() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$log"; }
pack() { tar czf "$OUT/results.tar.gz" results session-logs 2>/dev/null; }
mkdir -p session-logs
nvidia-smi -L > session-logs/gpu.txt 2>&1; st "$(head -1 session-logs/gpu.txt)"
rm -f results/host-device/*.json results/transpose/*.json results/coalescing/copy_tuned.json results/coalescing/copy_float4.json results/coalescing/copy.json
st "book auto"
CUDA_MEASURED_MODE=auto timeout 360 scripts/book > session-logs/book-auto.log 2>&1; st "book rc=$?"
grep -E "^\[cuda\]" session-logs/book-auto.log | grep -E " pass \(| wrong| fault|example\(s\)" | tee -a "$log"
pack
peer() { # problem [SIZES]
  local problem=$1 harness ours
  harness=$(python3 -c 'import tomllib,sys; print(tomllib.load(open("bench/peers/peers.toml","rb"))[sys.argv[1]]["harness"])' $problem)
  ours=$(python3 -c 'import tomllib,sys; o=tomllib.load(open("bench/peers/peers.toml","rb"))[sys.argv[1]]["ours"]; print(" ".join("--ours results/%s.json" % i for i in ([o] if isinstance(o,str) else o)))' $problem)
  local left=$(( 585 - ($(date +%s) - t0) ))
  st "peers $problem ${SIZES:-all sizes} ($left s left)"
  RAW=session-logs/peers-raw-$problem.jsonl timeout $left $harness results/peers/$problem.jsonl > session-logs/peers-$problem.log 2>&1 || st "peers $problem failed"
  [[ -s results/peers/$problem.jsonl ]] && cuda-runner peers --same-session --problem $problem $ours --peers results/peers/$problem.jsonl > session-logs/$problem.json 2>> "$log" && cp session-logs/$problem.json results/peers/$problem.json
  pack
}
peer elementwise
peer transpose
for d in h2d d2h; do
  left=$(( 585 - ($(date +%s) - t0) ))
  if [[ $d == h2d && $left -lt 330 ]] || [[ $d == d2h && $left -lt 165 ]]; then
    SIZES=67108864,1073741824 peer transfer_$d
  else
    peer transfer_$d
  fi
done
st done; pack
