#!/usr/bin/env bash
# Call 1: (a) the prefix-sum check on the GPU against the host's, on the
# same examples (CUDA_MEASURED_DEVICE_CHECKS=0, then the default); (b) every
# scan and host-device example measured again in auto mode (their records
# removed first), with the checks on the GPU; (c) the planted fixture in
# auto mode (its new scan that overwrites its input).
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02d/lib.sh
ex="kernels/problems/scan_f32.cu kernels/exercise/scan/stage1_race.cu kernels/exercise/scan/stage4_chained.cu kernels/scan/lookback_serial.cu"
for mode in 0 1; do
  st "devcheck=$mode"
  /usr/bin/time -f "%e s" -o call-logs/devcheck-$mode.time env CUDA_MEASURED_DEVICE_CHECKS=$mode \
    timeout 150 cuda-runner run --json $ex > call-logs/devcheck-$mode.json 2> call-logs/devcheck-$mode.err
  st "rc=$? $(cat call-logs/devcheck-$mode.time)"
done
pack
rm -f results/scan/*.json results/exercise/scan/*.json results/problems/scan_f32.json results/host-device/*.json results/problems/transfer_pinned_h2d.json
book 1 20
st "planted fixture"
(cd preprocessor/tests/fixtures/planted && CUDA_MEASURED_MODE=auto timeout $(( $(left) - 5 )) mdbook build --dest-dir "$(mktemp -d)") > call-logs/planted.log 2>&1
st "rc=$?"; grep -E "^\[cuda\]" call-logs/planted.log | tail -20 >> "$log"
st done; pack
