# Shared by this session's call scripts (sourced from the repository root).
export PATH=$PWD/dist/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p call-logs; log=$OUT/call.log; t0=$(date +%s); deadline=${DEADLINE:-580}
st() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$log"; }
pack() { tar czf "$OUT/results.tar.gz" results preprocessor/tests/fixtures/planted/results call-logs 2>/dev/null; }
left() { echo $(( deadline - ($(date +%s) - t0) )); }
nvidia-smi -L > call-logs/gpu.txt 2>&1; st "$(head -1 call-logs/gpu.txt)"
book() { # NAME MARGIN: auto mode, what has no current record, within the time left less MARGIN s
  st "book auto $1 ($(left) s left)"
  CUDA_MEASURED_MODE=auto timeout $(( $(left) - $2 )) scripts/book > call-logs/book-$1.log 2>&1; st "rc=$?"
  grep -E "^\[cuda\] .*(pass|wrong|fault|error|broken|example\(s\))" call-logs/book-$1.log | tail -150 >> "$log"
  pack
}
peer() { # PROBLEM: its harness from bench/peers/peers.toml, then combined
  local problem=$1 harness ours
  harness=$(python3 -c 'import tomllib,sys; print(tomllib.load(open("bench/peers/peers.toml","rb"))[sys.argv[1]]["harness"])' $problem)
  ours=$(python3 -c 'import tomllib,sys; o=tomllib.load(open("bench/peers/peers.toml","rb"))[sys.argv[1]]["ours"]; print(" ".join("--ours results/%s.json" % i for i in ([o] if isinstance(o,str) else o)))' $problem)
  st "peers $problem ($(left) s left)"
  RAW=call-logs/peers-raw-$problem.jsonl timeout $(left) $harness results/peers/$problem.jsonl > call-logs/peers-$problem.log 2>&1 || st "peers $problem failed rc=$?"
  [[ -s results/peers/$problem.jsonl ]] && cuda-runner peers --same-session --problem $problem $ours --peers results/peers/$problem.jsonl > call-logs/$problem.json 2>> "$log" && cp call-logs/$problem.json results/peers/$problem.json
  tail -12 call-logs/peers-$problem.log >> "$log"
  pack
}
