#!/usr/bin/env python3
"""How fast the book is measured, from the results store: issue 20's goals
as a benchmark with committed results, not a timed test.

Reads every example record under results/ (not results/gpus/, whose
records are other GPU models'), keeps those of the latest measuring day,
and writes a summary: how many examples, each example's wall time as the
parent saw it (its eight processes in turn, starts included), the median
and the sum, the phases summed over the processes (context, compile,
inputs, checks, timing, ...), the slowest examples, and each goal with
whether it is met. Standard library only. Usage, from the repository root,
after a GPU run whose records are committed:

    python3 bench/measuring-speed/summarize.py           # print the summary
    python3 bench/measuring-speed/summarize.py --write   # and keep it as
                                                          # bench/measuring-speed/<gpu>-<day>.json
"""

import json
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOAL_MEDIAN_S = 1.5
GOAL_BOOK_S = 150.0
SLOW_LAUNCH_US = 100_000.0  # examples whose kernel runs over 100 ms a launch are set aside


def records():
    for path in sorted((ROOT / "results").rglob("*.json")):
        rel = path.relative_to(ROOT / "results")
        if rel.parts[0] in ("gpus", "profile", "sass", "sanitizer", "host", "peers", "allreduce"):
            continue
        try:
            r = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(r, dict) and "key" in r and "wall_s" in r and "example" in r:
            yield r


def main():
    rs = list(records())
    day = max(r.get("measured_at", "")[:10] for r in rs)
    rs = [r for r in rs if r.get("measured_at", "").startswith(day)]
    gpu = next((r["gpu"] for r in rs if r.get("gpu")), {})
    slow = {r["example"] for r in rs if any(s.get("median_us", 0) > SLOW_LAUNCH_US for s in r.get("sizes", []))}
    walls = sorted((r["wall_s"], r["example"]) for r in rs)
    counted = [w for w, e in walls if e not in slow]
    phases = {}
    for r in rs:
        for k, v in (r.get("cost") or {}).items():
            phases.setdefault(k, []).append(v)
    median = statistics.median(counted)
    total = sum(w for w, _ in walls)
    summary = {
        "day": day,
        "gpu": gpu.get("name"),
        "gpu_uuid": gpu.get("uuid"),
        "examples": len(rs),
        "wall_s_median": round(median, 3),
        "set_aside_from_the_median": sorted(slow),
        "wall_s_sum": round(total, 1),
        "phases_s_median": {k: round(statistics.median(v), 3) for k, v in sorted(phases.items())},
        "phases_s_sum": {k: round(sum(v), 1) for k, v in sorted(phases.items())},
        "slowest": [{"example": e, "wall_s": round(w, 2)} for w, e in walls[-6:]][::-1],
        "goals": {
            f"median example within {GOAL_MEDIAN_S} s": median <= GOAL_MEDIAN_S,
            f"whole book within {GOAL_BOOK_S:.0f} s (sum of example wall times)": total <= GOAL_BOOK_S,
        },
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if "--write" in sys.argv[1:]:
        model = (gpu.get("name") or "gpu").lower().replace("nvidia ", "nvidia-").replace(" ", "-")
        out = ROOT / "bench" / "measuring-speed" / f"{model}-{day}.json"
        out.write_text(text + "\n")
        print(f"kept as {out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
