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
                                                          # bench/measuring-speed/<gpu>-<day>-<uuid>.json
"""

import json
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOAL_MEDIAN_S = 1.5
GOAL_BOOK_S = 150.0
GOAL_WARM_ONE_S = 1.0  # one example at 2^22 on warm workers (the service's path)
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


def s_rows(r):
    """Whether a record's sizes are row-wise (rows x cols), not flat."""
    return any(s.get("rows") for s in r.get("sizes", []))


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
    # Where the first process's time goes against the others' (it draws the
    # data and judges the answers the others find judged), when the records
    # keep each process's phases.
    first, rest = {}, {}
    for r in rs:
        by = r.get("cost_by_process") or []
        for i, c in enumerate(by):
            for k, v in c.items():
                (first if i == 0 else rest).setdefault(k, []).append(v)
    # One example at 2^22 on warm workers: the examples whose only size is
    # 2^22 and whose processes were already up (no context opened), all
    # eight processes' jobs in turn, compile included (slow-launch examples
    # aside, as for the median).
    warm_one = sorted(
        r["wall_s"]
        for r in rs
        if [s.get("n") for s in r.get("sizes", [])] == [1 << 22]
        and not s_rows(r)
        and (r.get("cost") or {}).get("context_s", 1) == 0
        and r["example"] not in slow
    )
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
        "phases_s_sum_first_process": {k: round(sum(v), 1) for k, v in sorted(first.items())},
        "phases_s_sum_other_processes": {k: round(sum(v), 1) for k, v in sorted(rest.items())},
        "one_example_at_2^22_on_warm_workers_s": {
            "examples": len(warm_one),
            "median": round(statistics.median(warm_one), 3) if warm_one else None,
            "max": round(max(warm_one), 3) if warm_one else None,
        },
        "slowest": [{"example": e, "wall_s": round(w, 2)} for w, e in walls[-6:]][::-1],
        "goals": {
            f"median example within {GOAL_MEDIAN_S} s": median <= GOAL_MEDIAN_S,
            f"whole book within {GOAL_BOOK_S:.0f} s (sum of example wall times)": total <= GOAL_BOOK_S,
            f"one example at 2^22 within {GOAL_WARM_ONE_S} s on warm workers": bool(warm_one)
            and max(warm_one) <= GOAL_WARM_ONE_S,
        },
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if "--write" in sys.argv[1:]:
        model = (gpu.get("name") or "gpu").lower().replace("nvidia ", "nvidia-").replace(" ", "-")
        uuid = (gpu.get("uuid") or "GPU-unknown")[:12]
        out = ROOT / "bench" / "measuring-speed" / f"{model}-{day}-{uuid}.json"
        out.write_text(text + "\n")
        print(f"kept as {out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
