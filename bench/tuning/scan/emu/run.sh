#!/usr/bin/env bash
# Builds and runs every scan kernel in the CPU emulator (emu.h): whole-number
# inputs, every element checked exactly. Usage: bench/tuning/scan/emu/run.sh [SIZES...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k=$(cd "$here/../../../../kernels" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sizes=("$@")
build() { # name, then g++ flags
    local name=$1; shift
    g++ -O1 -std=c++17 -w -o "$out/$name" "$@" "$here/driver.cpp"
    echo "== $name"
    "$out/$name" "${sizes[@]}" || echo "!! $name FAILED"
}
build problem -DKFILE="\"$k/problems/scan_f32.cu\"" -DPLAN_PROBLEM
build hillis_steele -DKFILE="\"$k/scan/hillis_steele.cu\"" -DPLAN_PROPAGATE -DBLOCK0=1024 -DKERNEL0=scan_tiles_hillis_steele
build blelloch -DKFILE="\"$k/scan/blelloch.cu\"" -DPLAN_PROPAGATE -DBLOCK0=512 -DKERNEL0=scan_tiles_blelloch
build warp_scan -DKFILE="\"$k/scan/warp_scan.cu\"" -DPLAN_PROPAGATE -DBLOCK0=1024 -DKERNEL0=scan_tiles_warp
build reduce_then_scan -DKFILE="\"$k/scan/reduce_then_scan.cu\"" -DPLAN_RTS
build lookback_serial -DKFILE="\"$k/scan/lookback_serial.cu\"" -DPLAN_SINGLE -DBLOCK0=256 -DTILE_ELEMS=4096 -DKERNEL0=scan_lookback_serial
build lookback_warp -DKFILE="\"$k/scan/lookback_warp.cu\"" -DPLAN_SINGLE -DBLOCK0=256 -DTILE_ELEMS=4096 -DKERNEL0=scan_lookback_warp
build lookback_zeroed -DKFILE="\"$k/scan/lookback_zeroed.cu\"" -DPLAN_SINGLE -DBLOCK0=256 -DTILE_ELEMS=4096 -DKERNEL0=scan_lookback_vec
for items in 2 4 6 8; do
    build lookback_tuned_$items -DKFILE="\"$k/scan/lookback_tuned.cu\"" -DPLAN_CLEARED -DITEMS=$items -DBLOCK0=256 -DTILE_ELEMS=$((1024 * items)) -DKERNEL0=scan_lookback_vec
done
for threads in 128 512; do
    build lookback_threads_$threads -DKFILE="\"$k/scan/lookback_threads.cu\"" -DPLAN_CLEARED -DTHREADS=$threads -DBLOCK0=$threads -DTILE_ELEMS=$((24 * threads)) -DKERNEL0=scan_lookback_vec
done
e=$k/exercise/scan
build ex_stage1_starter -DKFILE="\"$e/stage1_starter.cu\"" -DPLAN_ONE_THREAD
build ex_stage1_solution -DKFILE="\"$e/stage1_solution.cu\"" -DPLAN_EX_PROPAGATE
build ex_stage1_race -DKFILE="\"$e/stage1_race.cu\"" -DPLAN_EX_PROPAGATE
build ex_stage2_solution -DKFILE="\"$e/stage2_solution.cu\"" -DPLAN_EX_PROPAGATE
build ex_stage3_solution -DKFILE="\"$e/stage3_solution.cu\"" -DPLAN_RTS
build ex_stage3_solution_sms4 -DKFILE="\"$e/stage3_solution.cu\"" -DPLAN_RTS -DSMS=4u
build reduce_then_scan_sms4 -DKFILE="\"$k/scan/reduce_then_scan.cu\"" -DPLAN_RTS -DSMS=4u
build ex_stage4_solution -DKFILE="\"$e/stage4_solution.cu\"" -DPLAN_SINGLE -DBLOCK0=256 -DTILE_ELEMS=4096 -DKERNEL0=scan_lookback
build ex_stage4_chained -DKFILE="\"$e/stage4_chained.cu\"" -DPLAN_SINGLE -DBLOCK0=256 -DTILE_ELEMS=4096 -DKERNEL0=scan_lookback
g++ -O1 -std=c++17 -w -o "$out/test_lookback" "$here/test_lookback.cpp" && "$out/test_lookback"
