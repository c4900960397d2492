"""Draws the memory-hierarchy chapter's staircase as SVG, into
src/images/memory-hierarchy/.

Unlike the book's other figures, this one is drawn from measurements: the
results store's records of kernels/memory-hierarchy/chase.cu and
chase_more.cu, and of chase_far.cu (results/memory-hierarchy/*.json), one
point per declared size, at the footprint the size names and the time per
dependent load the record holds (10^9 / its `accesses_per_s`), in
nanoseconds on the left axis and in SM cycles, at the clock the samples
recorded, on the right. Each entry of SERIES is drawn as its own series
(its own marker and colour, joined by its own line, named in the legend
with the GPU sessions of its records: uuid prefix and date), since
chase_far was measured on another GPU than chase and chase_more and
measures 28, 40 and 60 MiB again. Only the geometry and the axis ticks
carry the figures; the chapter prints each point's value with
{{#measured}}. A size the store does not hold yet is left out, and with
none the chart says the walks are not measured yet. Redraw it after
measuring (`--check`, which scripts/test runs, fails until then).

Standard library only. Usage, from the repository root:

    python3 bench/figures/memory_hierarchy_figures.py          # write the SVG
    python3 bench/figures/memory_hierarchy_figures.py --check  # exit 1 if stale
"""

import json
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, num, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
STORE = ROOT / "results" / "memory-hierarchy"
OUT_DIR = ROOT / "src" / "images" / "memory-hierarchy"
# (examples, colour, marker): each entry one series of the chart.
SERIES = [
    (["chase", "chase_more"], BLUE, "square"),
    (["chase_far"], ORANGE, "circle"),
]
KIB = 1024


def points(examples):
    """(footprint in bytes, ns per load, SM MHz) of every stored size of the
    records `examples`, sorted by footprint; the L2 size of the records; and
    their GPU sessions, as sorted 'GPU-xxxxxxxx, YYYY-MM-DD' strings."""
    found, l2, sessions = [], None, set()
    for name in examples:
        path = STORE / f"{name}.json"
        if not path.exists():
            continue
        record = json.loads(path.read_text())
        if record.get("status") != "pass":
            continue
        l2 = record["gpu"].get("l2_bytes", l2)
        uuid = record["gpu"].get("uuid", "")
        session = (uuid[:12] + ", " if uuid else "") + record["measured_at"][:10]
        sessions.add(session)
        for size in record["sizes"]:
            rate = size.get("metrics", {}).get("accesses_per_s")
            if rate:
                found.append((size["dims"]["footprint"], 1e9 / rate, size["sm_clock_mhz"]))
    return sorted(found), l2, sorted(sessions)


def gpu_name():
    """The GPU name of the first stored record of SERIES, or None."""
    for examples, _, _ in SERIES:
        for name in examples:
            path = STORE / f"{name}.json"
            if path.exists():
                return json.loads(path.read_text())["gpu"]["name"]
    return None


def draw_marker(svg, shape, x, y):
    """One point's marker, about 7 units across, in the paint of the open group."""
    if shape == "circle":
        svg.items.append(f'<circle cx="{num(x)}" cy="{num(y)}" r="3.2"/>')
    else:
        svg.rect(x - 3.5, y - 3.5, 7, 7)


def size_text(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", KIB)):
        if b >= scale:
            v = b / scale
            return f"{v:g} {unit}"
    return f"{b} B"


def figure_staircase():
    series, l2 = [], None
    for examples, colour, shape in SERIES:
        pts, l2_here, sessions = points(examples)
        l2 = l2_here or l2
        if pts:
            series.append((examples, colour, shape, pts, sessions))
    every = [p for *_, pts, _ in series for p in pts]
    width, height = 640, 340
    left, right, top, bottom = 56, 56, 46, 52
    pw, ph = width - left - right, height - top - bottom
    lo, hi = math.log2(8 * KIB), math.log2(128 << 20)

    def x_of(b):
        return left + pw * (math.log2(b) - lo) / (hi - lo)

    top_ns = max([ns for _, ns, _ in every] + [100.0])
    step = 10 ** math.floor(math.log10(top_ns))
    for m in (1, 2, 5, 10):
        if top_ns / (m * step) <= 6:
            step *= m
            break
    y_max = step * math.ceil(top_ns * 1.08 / step)

    def y_of(ns):
        return top + ph * (1 - ns / y_max)

    def label(examples, sessions):
        return f'{", ".join(examples)} ({"; ".join(sessions)})'

    one_session = len({s for *_, sessions in series for s in sessions}) <= 1
    parts = []
    for examples, _, shape, pts, sessions in series:
        text = "; ".join(f"{size_text(b)}: {ns:.1f} ns" for b, ns, _ in pts)
        where = "" if one_session else f", {'; '.join(sessions)}"
        parts.append(f"{', '.join(examples)} ({shape}s{where}): {text}.")
    name = gpu_name()
    uuids = {s.split(", ")[0] for *_, sessions in series for s in sessions if s.startswith("GPU-")}
    apart = f"on different {name} GPUs" if len(uuids) > 1 else f"in different sessions of one {name}"
    desc = "Time per dependent load against the footprint of the walk, log scale from 8 KiB to 128 MiB. " + (
        " ".join(parts)
        + (
            f" All on {name}, {series[0][4][0]}."
            if one_session
            else f" The series were measured {apart} (GPU uuid prefix and date of measuring as named)."
        )
        if series
        else "No walk is measured yet."
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
    clock = sorted(mhz for _, _, mhz in every)[len(every) // 2] if every else None
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
    for _, colour, shape, pts, _ in series:
        svg.open(stroke=colour, stroke_width=1.6, fill="none")
        for (b0, n0, _), (b1, n1, _) in zip(pts, pts[1:]):
            svg.line(x_of(b0), y_of(n0), x_of(b1), y_of(n1))
        svg.close()
    for _, colour, shape, pts, _ in series:
        svg.open(fill=colour, stroke="currentColor", stroke_width=0.6)
        for b, ns, _ in pts:
            draw_marker(svg, shape, x_of(b), y_of(ns))
        svg.close()
    if series:
        # The legend, top left, where the walks' short times leave room.
        for i, (examples, colour, shape, _, sessions) in enumerate(series):
            y = top + 14 + 15 * i
            svg.line(left + 8, y - 3.5, left + 26, y - 3.5, stroke=colour, stroke_width=1.6)
            svg.open(fill=colour, stroke="currentColor", stroke_width=0.6)
            draw_marker(svg, shape, left + 17, y - 3.5)
            svg.close()
            svg.text(left + 32, y, label(examples, sessions), size=10, opacity=0.8)
        if name:
            svg.text(left + 8, top + 14 + 15 * len(series), name, size=10, opacity=0.8)
    else:
        svg.text(left + pw / 2, top + ph / 2, "not measured yet: redraw after measuring", size=12, anchor="middle", opacity=0.8)
    return svg


FIGURES = {"staircase.svg": figure_staircase}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/memory_hierarchy_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
