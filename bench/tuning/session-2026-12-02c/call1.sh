#!/usr/bin/env bash
# Call 1: the newly linked examples measured (auto mode: what has no
# current record): memory-hierarchy/chase_ptr and chase_far, scan,
# histogram, matmul and their exercises.
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02c/lib.sh
book 1
st done; pack
