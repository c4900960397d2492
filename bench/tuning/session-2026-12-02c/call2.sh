#!/usr/bin/env bash
# Call 2: what call 1 left unmeasured, then the profiles the new pages and
# exercise gates name, then the part II peers (CUB, torch, cuBLAS).
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02c/lib.sh
[[ -n ${BOOK_FIRST:-} ]] && book 2 240
st "profiles ($(left) s left)"
PROFILE_NAMED_ONLY=1 PROFILE_MATCH='memory-hierarchy/chase(_far|_ptr)?\.cu|kernels/(scan|histogram|matmul|exercise/(scan|histogram|matmul))/' \
  timeout $(( $(left) - ${PEERS_S:-170} )) bench/gpu-session.sh /tmp/prof profile > call-logs/profile-stage.log 2>&1; st "profile rc=$?"
cp session-logs/profile.log session-logs/profile-list.txt call-logs/ 2>/dev/null
grep -c '' call-logs/profile.log >> "$log"; grep -i "failed" call-logs/profile-stage.log | head -20 >> "$log"
pack
for p in matmul_f32 histogram_u8 histogram_u8_skewed scan_f32; do peer $p; done
st done; pack
