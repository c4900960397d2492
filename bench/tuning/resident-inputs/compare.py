#!/usr/bin/env python3
"""Inputs kept on the GPU between examples and answers judged while the
GPU times (the default since 2026-12-02), against every example's inputs
uploaded afresh and judged before timing (CUDA_MEASURED_RESIDENT_MIB=0
CUDA_MEASURED_OVERLAP_CHECKS=0): `cuda-runner run kernels/disguise --json`
both ways on one H200 in one session. Prints each example's wall time and
phases both ways and the ratio of every size's median (new / old), then
the medians and sums. Usage: compare.py NEW.json[.gz] OLD.json[.gz]"""
import gzip, json, statistics, sys
from pathlib import Path


def load(name):
    p = Path(name)
    if not p.is_absolute() and not p.exists():
        p = Path(__file__).parent / name
    opener = gzip.open if p.suffix == ".gz" else open
    return json.load(opener(p))


new = load(sys.argv[1] if len(sys.argv) > 1 else "new-2026-12-02.json.gz")
old = {r["example"]: r for r in load(sys.argv[2] if len(sys.argv) > 2 else "old-2026-12-02.json.gz")}
walls, ratios, phases = [], [], {}
for r in new:
    o = old.get(r["example"])
    if not o:
        continue
    rs = [a["median_us"] / b["median_us"] for a, b in zip(r["sizes"], o["sizes"])]
    ratios += rs
    walls.append((r["wall_s"], o["wall_s"]))
    for k in ("inputs_s", "checks_s", "timing_s"):
        phases.setdefault(k, []).append(((r.get("cost") or {}).get(k, 0), (o.get("cost") or {}).get(k, 0)))
    print(f'{r["example"]:40} {r["status"]:6} new {r["wall_s"]:5.2f} s  old {o["wall_s"]:5.2f} s  medians {" ".join(f"{x:.3f}" for x in rs)}')
print(f"{len(walls)} examples, {len(ratios)} sizes")
print(f"wall per example, median: new {statistics.median(w for w, _ in walls):.2f} s, old {statistics.median(c for _, c in walls):.2f} s")
print(f"wall in all: new {sum(w for w, _ in walls):.1f} s, old {sum(c for _, c in walls):.1f} s")
for k, v in phases.items():
    print(f"{k} in all: new {sum(a for a, _ in v):.1f} s, old {sum(b for _, b in v):.1f} s")
print(f"median ratio new/old: median {statistics.median(ratios):.4f}, min {min(ratios):.4f}, max {max(ratios):.4f}")
print(f"|ratio - 1|: median {100 * statistics.median(abs(r - 1) for r in ratios):.3f}%")
