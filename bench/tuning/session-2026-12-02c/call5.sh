#!/usr/bin/env bash
# Call 5: chase and chase_more measured again, in the session of chase_ptr
# and chase_far (their ratios on the page then divide figures of one
# session); the two profiles and the racecheck the new pages name outside
# the kernel folders matched in call 2.
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02c/lib.sh
rm -f results/memory-hierarchy/chase.json results/memory-hierarchy/chase_more.json results/problems/scan_f32.json results/problems/matmul_tiled.json
book 5 120
st "profiles and racecheck ($(left) s left)"
cuda-runner profile kernels/problems/scan_f32.cu --size 2^24 --stalls > call-logs/profile-5.log 2>&1; st "scan_f32 rc=$?"
cuda-runner profile kernels/problems/matmul_tiled.cu --size "M=N=K=2048" >> call-logs/profile-5.log 2>&1; st "matmul_tiled rc=$?"
cuda-runner sanitize kernels/exercise/scan/stage1_race.cu --check racecheck --size 2^20 > call-logs/sanitize-5.log 2>&1; st "racecheck rc=$?"
tail -5 call-logs/profile-5.log call-logs/sanitize-5.log >> "$log"
st done; pack
