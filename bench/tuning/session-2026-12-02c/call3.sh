#!/usr/bin/env bash
# Call 3: the six host-device examples measured again, then the peers of
# transfer_h2d, in the session of calls 1-4 (one lease, one GPU), so the
# pinned copies' ratio to torch's is of one session.
set -u
cd "$(dirname "$0")/../../.."
source bench/tuning/session-2026-12-02c/lib.sh
rm -f results/host-device/*.json
book 3 170
peer transfer_h2d
st done; pack
