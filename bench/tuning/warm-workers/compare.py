#!/usr/bin/env python3
"""Warm workers against fresh processes, the same examples on one H200 in
one session (2026-12-02, GPU-586842fd): `cuda-runner run kernels/disguise
--json` with warm workers (the default) and with CUDA_MEASURED_WARM=0.
Prints each example's wall time both ways and the ratio of every size's
median (warm / fresh), then the medians and sums of the wall times."""
import gzip, json, statistics, sys
from pathlib import Path

here = Path(__file__).parent
load = lambda name: json.load(gzip.open(here / name))
warm = load("warm-2026-12-02.json.gz")
cold = {r["example"]: r for r in load("cold-2026-12-02.json.gz")}
walls, ratios = [], []
for r in warm:
    o = cold.get(r["example"])
    if not o:
        continue
    rs = [a["median_us"] / b["median_us"] for a, b in zip(r["sizes"], o["sizes"])]
    ratios += rs
    walls.append((r["wall_s"], o["wall_s"]))
    print(f'{r["example"]:40} {r["status"]:6} warm {r["wall_s"]:5.2f} s  fresh {o["wall_s"]:5.2f} s  medians {" ".join(f"{x:.3f}" for x in rs)}')
print(f"{len(walls)} examples, {len(ratios)} sizes")
print(f"wall per example, median: warm {statistics.median(w for w, _ in walls):.2f} s, fresh {statistics.median(c for _, c in walls):.2f} s")
print(f"wall in all: warm {sum(w for w, _ in walls):.1f} s, fresh {sum(c for _, c in walls):.1f} s")
print(f"median ratio warm/fresh: median {statistics.median(ratios):.4f}, min {min(ratios):.4f}, max {max(ratios):.4f}")
print(f"|ratio - 1|: median {100 * statistics.median(abs(r - 1) for r in ratios):.3f}%")
