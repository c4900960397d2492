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
# peer PROBLEM: as session-2026-12-02c's (its harness from bench/peers/peers.toml, then combined)
eval "$(sed -n '/^peer() {/,/^}/p' bench/tuning/session-2026-12-02c/lib.sh)"
