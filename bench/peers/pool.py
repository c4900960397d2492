"""Pools the JSON lines of several peer processes into one line per
implementation and size, as the runner pools its own processes
(runner/core/src/pool.rs): times are pooled and the median taken over all of
them; the SM clock is the median over processes; dropped samples add up; a
check fails if it failed in any process, and the largest error is kept.
Meta lines: the first of each source, with the number of processes pooled.

Usage: python3 pool.py RAW.jsonl > POOLED.jsonl
"""
import json
import sys

# The statistics of the timing harness itself, so pooled lines are reduced
# exactly as single-process lines are.
from python_peers import median, rel_stdev


def pool(lines):
    metas, groups, order = {}, {}, []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        if r.get("impl") == "meta":
            m = metas.setdefault(r.get("source"), dict(r, pooled_processes=0))
            m["pooled_processes"] += 1
            continue
        key = (r["impl"], r["n"])
        if key not in groups:
            order.append(key)
        groups.setdefault(key, []).append(r)
    out = list(metas.values())
    for key in order:
        runs = groups[key]
        times = [t for r in runs for t in r.get("times_us") or []]
        first = dict(runs[0])
        first.pop("times_us", None)
        med = median(times)
        worst = max(runs, key=lambda r: (not r.get("pass"), r.get("error") or 0.0))
        first.update(
            {
                "median_us": med if times else None,
                "min_us": min(times) if times else None,
                "max_us": max(times) if times else None,
                "samples": len(times),
                "rel_spread": rel_stdev(times),
                "noisy": any(r.get("noisy") for r in runs),
                "throttled": sum(r.get("throttled", 0) for r in runs),
                "blocker_timeouts": sum(r.get("blocker_timeouts", 0) for r in runs),
                "sm_clock_mhz": median([r["sm_clock_mhz"] for r in runs if r.get("sm_clock_mhz")]),
                # Bytes moved as the line says (the row problems' lines carry
                # `bytes`), else the sum's 4N (its output is 4 bytes).
                "gb_per_s": first.get("bytes", key[1] * 4) / (med * 1e-6) / 1e9 if med > 0 else None,
                "got": worst.get("got"),
                "error": worst.get("error"),
                "pass": all(r.get("pass") for r in runs),
                "processes": len(runs),
            }
        )
        # TFLOP/s of the line's own work, where it counts one (matmul_f32).
        if first.get("flop"):
            first["tflops"] = first["flop"] / (med * 1e-6) / 1e12 if med > 0 else None
        out.append(first)
    return out


def main():
    with open(sys.argv[1]) as f:
        for r in pool(f):
            print(json.dumps(r))


if __name__ == "__main__":
    main()
