"""Draws the memory-hierarchy chapter's staircase as SVG, into
src/images/memory-hierarchy/.

Unlike the book's other figures, this one is drawn from measurements: the
results store's records of kernels/memory-hierarchy/chase.cu and
chase_more.cu (results/memory-hierarchy/*.json), one point per declared
size, at the footprint the size names and the time per dependent load the
record holds (10^9 / its `accesses_per_s`), in nanoseconds on the left axis
and in SM cycles, at the clock the samples recorded, on the right. Only the
geometry and the axis ticks carry the figures; the chapter prints each
point's value with {{#measured}}. A size the store does not hold yet is
left out, and with none the chart says the walks are not measured yet.
Redraw it after measuring (`--check`, which scripts/test runs, fails until
then).

Standard library only. Usage, from the repository root:

    python3 bench/figures/memory_hierarchy_figures.py          # write the SVG
    python3 bench/figures/memory_hierarchy_figures.py --check  # exit 1 if stale
"""

import json
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, Svg, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
STORE = ROOT / "results" / "memory-hierarchy"
OUT_DIR = ROOT / "src" / "images" / "memory-hierarchy"
EXAMPLES = ["chase", "chase_more"]
KIB = 1024


def points():
    """(footprint in bytes, ns per load, SM MHz) of every stored size, and
    the L2 size and GPU of the records, sorted by footprint."""
    found, l2, gpu = [], None, None
    for name in EXAMPLES:
        path = STORE / f"{name}.json"
        if not path.exists():
            continue
        record = json.loads(path.read_text())
        if record.get("status") != "pass":
            continue
        l2 = record["gpu"].get("l2_bytes", l2)
        gpu = f'{record["gpu"]["name"]}, {record["measured_at"][:10]}'
        for size in record["sizes"]:
            rate = size.get("metrics", {}).get("accesses_per_s")
            if rate:
                found.append((size["dims"]["footprint"], 1e9 / rate, size["sm_clock_mhz"]))
    return sorted(found), l2, gpu


def size_text(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", KIB)):
        if b >= scale:
            v = b / scale
            return f"{v:g} {unit}"
    return f"{b} B"


def figure_staircase():
    pts, l2, gpu = points()
    width, height = 640, 340
    left, right, top, bottom = 56, 56, 46, 52
    pw, ph = width - left - right, height - top - bottom
    lo, hi = math.log2(8 * KIB), math.log2(128 << 20)

    def x_of(b):
        return left + pw * (math.log2(b) - lo) / (hi - lo)

    top_ns = max([ns for _, ns, _ in pts] + [100.0])
    step = 10 ** math.floor(math.log10(top_ns))
    for m in (1, 2, 5, 10):
        if top_ns / (m * step) <= 6:
            step *= m
            break
    y_max = step * math.ceil(top_ns * 1.08 / step)

    def y_of(ns):
        return top + ph * (1 - ns / y_max)

    desc = (
        "Time per dependent load against the footprint of the walk, log scale from 8 KiB to 128 MiB. "
        + (
            "Points: " + "; ".join(f"{size_text(b)}: {ns:.1f} ns" for b, ns, _ in pts) + f" ({gpu})."
            if pts
            else "No walk is measured yet."
        )
    )
    svg = Svg("staircase", width, height, "Latency of one dependent load against the footprint of the walk", desc)
    svg.text(left, 18, "one thread, i = next[i]: time per load against footprint", size=12, weight="bold")
    axis = dict(stroke="currentColor", stroke_width=0.8)
    svg.line(left, top, left, top + ph, **axis)
    svg.line(left, top + ph, left + pw, top + ph, **axis)
    svg.line(left + pw, top, left + pw, top + ph, **axis)
    e = math.ceil(lo)
    while e <= hi:
        x = x_of(2**e)
        svg.line(x, top + ph, x, top + ph + 4, **axis)
        if e % 2 == 1:
            svg.text(x, top + ph + 16, size_text(2**e), size=10, anchor="middle")
        e += 1
    svg.text(left + pw / 2, height - 10, "footprint (lines touched: a slot every 128 B)", size=11, anchor="middle")
    clock = sorted(mhz for _, _, mhz in pts)[len(pts) // 2] if pts else None
    v = 0.0
    while v <= y_max + 1e-9:
        y = y_of(v)
        svg.line(left - 4, y, left, y, **axis)
        svg.text(left - 7, y + 3.5, f"{v:g}", size=10, anchor="end")
        if clock:
            svg.line(left + pw, y, left + pw + 4, y, **axis)
            svg.text(left + pw + 7, y + 3.5, f"{v * clock / 1000:.0f}", size=10)
        v += step
    svg.text(left, top - 8, "ns per load", size=11, anchor="middle")
    if clock:
        svg.text(left + pw, top - 8, "SM cycles", size=11, anchor="middle")
    if l2:
        x = x_of(l2)
        svg.line(x, top, x, top + ph, stroke="currentColor", stroke_width=0.8, stroke_dasharray="4 3", stroke_opacity=0.6)
        svg.text(x - 4, top + 12, f"L2: {size_text(l2)}", size=10, anchor="end", opacity=0.8)
    if pts:
        svg.open(stroke=BLUE, stroke_width=1.6, fill="none")
        for (b0, n0, _), (b1, n1, _) in zip(pts, pts[1:]):
            svg.line(x_of(b0), y_of(n0), x_of(b1), y_of(n1))
        svg.close()
        svg.open(fill=BLUE, stroke="currentColor", stroke_width=0.6)
        for b, ns, _ in pts:
            svg.rect(x_of(b) - 3.5, y_of(ns) - 3.5, 7, 7)
        svg.close()
        svg.text(left + 8, top + 14, gpu, size=10, opacity=0.8)
    else:
        svg.text(left + pw / 2, top + ph / 2, "not measured yet: redraw after measuring", size=12, anchor="middle", opacity=0.8)
    return svg


FIGURES = {"staircase.svg": figure_staircase}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/memory_hierarchy_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
