#!/usr/bin/env bash
# Call 2: the transfer peers (both directions) and the scan peers, in the
# session of call 1's records.
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02d/lib.sh
peer transfer_h2d
peer transfer_d2h
peer scan_f32
st done; pack
