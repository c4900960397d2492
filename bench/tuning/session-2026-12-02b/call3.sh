#!/usr/bin/env bash
# Call 3: part II. First SIMT, occupancy, grid-stride and atomics measured
# and profiled (what their directives name), then the rest of part II
# measured (histogram, scan, matmul) in the time left.
set -u
cd "$(dirname "$0")/.."
export PATH=$PWD/dist/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p call-logs; log=$OUT/call.log; t0=$(date +%s); deadline=${DEADLINE:-395}
st() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$log"; }
pack() { tar czf "$OUT/results.tar.gz" results call-logs 2>/dev/null; }
left() { echo $(( deadline - ($(date +%s) - t0) )); }
nvidia-smi -L > call-logs/gpu.txt 2>&1; st "$(head -1 call-logs/gpu.txt)"
cp src/SUMMARY.md /tmp/SUMMARY.full
grep -vE '\((scan|exercise-scan|histogram|exercise-histogram|matmul|exercise-matmul)\.md\)' /tmp/SUMMARY.full > src/SUMMARY.md
st "book auto: simt, occupancy, grid-stride, atomics"
CUDA_MEASURED_MODE=auto timeout 150 scripts/book > call-logs/book-a.log 2>&1; st "rc=$?"
grep -E "^\[cuda\] .*(pass|wrong|fault|error|broken|example\(s\))" call-logs/book-a.log | tail -60 >> "$log"
pack
st "profiles ($(left) s left)"
PROFILE_NAMED_ONLY=1 PROFILE_MATCH='kernels/(simt|occupancy|grid-stride|atomics)/' timeout $(( $(left) - 120 )) bench/gpu-session.sh /tmp/prof profile > call-logs/profile-stage.log 2>&1; st "profile rc=$?"
cp session-logs/profile.log session-logs/profile-list.txt call-logs/ 2>/dev/null
pack
cp /tmp/SUMMARY.full src/SUMMARY.md
st "book auto: the rest of part II ($(left) s left)"
CUDA_MEASURED_MODE=auto timeout $(( $(left) - 5 )) scripts/book > call-logs/book-b.log 2>&1; st "rc=$?"
grep -E "^\[cuda\] .*(pass|wrong|fault|error|broken|example\(s\))" call-logs/book-b.log | tail -80 >> "$log"
st done; pack
