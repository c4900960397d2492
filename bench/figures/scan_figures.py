"""Draws the scan chapter's figure as SVG, into src/images/scan/.

The figure is Blelloch's up-sweep and down-sweep as kernels/scan/blelloch.cu
runs them, over a tile of 16 elements instead of the kernel's 1024: the
loops below mirror the kernel's lines (checked against its source, so an
edit the mirror no longer matches stops the script), and every value drawn
is computed by running them on the drawn inputs, then held to a plain
exclusive scan of those inputs.

Standard library only. Usage, from the repository root:

    python3 bench/figures/scan_figures.py          # write the SVG
    python3 bench/figures/scan_figures.py --check  # exit 1 if stale
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = ROOT / "kernels" / "scan" / "blelloch.cu"
OUT_DIR = ROOT / "src" / "images" / "scan"

# The drawn tile and its inputs (small whole numbers, so every value fits
# a cell).
TILE = 16
INPUTS = [3, 1, 7, 0, 4, 1, 6, 3, 5, 2, 0, 4, 2, 6, 1, 3]

# The kernel's lines the mirror below follows, in order.
MIRRORED = [
    "for (unsigned int active = TILE / 2; active > 0; active /= 2) {",
    "const unsigned int right = stride * (2 * t + 2) - 1;",
    "s[right] += s[right - stride];",
    "stride *= 2;",
    "s[TILE - 1] = 0.0f;",
    "for (unsigned int active = 1; active < TILE; active *= 2) {",
    "stride /= 2;",
    "const unsigned int right = stride * (2 * t + 2) - 1, left = right - stride;",
    "s[left] = s[right];",
    "s[right] += l;",
]


def check_source():
    src = KERNEL.read_text()
    at = 0
    for line in MIRRORED:
        match = expect(re.escape(line), src[at:], f"`{line}` in kernels/scan/blelloch.cu (in this order)")
        at += match.end()


def sweeps(x):
    """blelloch.cu's two sweeps over one tile: the rows to draw, each
    (label, values after the level, [(from, to, kind)] moves), and the
    exclusive scan it leaves."""
    s = list(x)
    rows = [("load", list(s), [])]
    stride = 1
    active = TILE // 2
    while active > 0:
        moves = []
        for t in range(active):
            right = stride * (2 * t + 2) - 1
            s[right] += s[right - stride]
            moves.append((right - stride, right, "add"))
        rows.append((f"up, stride {stride}: {active} thread{'s' if active > 1 else ''}", list(s), moves))
        stride *= 2
        active //= 2
    total = s[TILE - 1]
    s[TILE - 1] = 0
    rows.append(("clear the last slot (the total goes to sums)", list(s), [(TILE - 1, TILE - 1, "clear")]))
    active = 1
    while active < TILE:
        stride //= 2
        moves = []
        for t in range(active):
            right = stride * (2 * t + 2) - 1
            left = right - stride
            l = s[left]
            s[left] = s[right]
            s[right] += l
            moves.append((right, left, "copy"))
            moves.append((left, right, "add"))
        rows.append((f"down, stride {stride}: {active} thread{'s' if active > 1 else ''}", list(s), moves))
        active *= 2
    return rows, s, total


def figure_sweeps():
    check_source()
    rows, exclusive, total = sweeps(INPUTS)
    want, run = [], 0
    for v in INPUTS:
        want.append(run)
        run += v
    assert exclusive == want and total == run, "the mirrored sweeps do not give the exclusive scan"

    label_w, pitch, cell_w, cell_h, row_h = 250, 29, 25, 18, 44
    top = 46
    width = label_w + TILE * pitch + 10
    height = top + (len(rows) - 1) * row_h + cell_h + 40
    svg = Svg(
        "blelloch-sweeps",
        width,
        height,
        f"Blelloch's up-sweep and down-sweep over a tile of {TILE} elements",
        f"One row per level of kernels/scan/blelloch.cu's two loops, run on {TILE} small whole numbers: "
        f"the up-sweep adds pairs into the right element of each pair, stride 1, 2, 4, 8, so the last slot "
        f"ends with the total ({total}); that slot is cleared; the down-sweep then passes each right element's "
        f"value to the left one and adds the left one's old value to it, stride 8, 4, 2, 1, which leaves the "
        f"exclusive scan. Filled cells are the slots a level writes; blue arrows add, orange ones copy.",
    )
    svg.text(0, 14, f"The sweeps of blelloch.cu over {TILE} elements (the kernel's tiles are 1024: ten levels each way)")
    svg.text(0, 32, "filled: written at this level · blue arrow: added into · orange arrow: copied to", size=11, opacity=0.85)
    centre = lambda i: label_w + i * pitch + cell_w / 2  # noqa: E731
    for r, (label, values, moves) in enumerate(rows):
        y = top + r * row_h
        svg.text(label_w - 10, y + 13, label, size=11, anchor="end")
        written = {to for _, to, _ in moves}
        for i, v in enumerate(values):
            fill = dict(fill=BLUE, fill_opacity=0.45) if i in written else dict(fill="none")
            svg.rect(label_w + i * pitch, y, cell_w, cell_h, stroke="currentColor", stroke_width=0.6, stroke_opacity=0.7, **fill)
            svg.text(centre(i), y + 13, v, size=11, anchor="middle", mono=True)
        if r == 0:
            continue
        y_from = top + (r - 1) * row_h + cell_h + 1
        for src, dst, kind in moves:
            if kind == "clear":
                continue
            colour = BLUE if kind == "add" else ORANGE
            svg.line(centre(src), y_from, centre(dst), y - 1.5, stroke=colour, stroke_width=1.1, marker_end=svg.marker(colour))
    y_end = top + (len(rows) - 1) * row_h + cell_h
    svg.text(label_w - 10, y_end + 26, "inclusive scan: exclusive + x", size=11, anchor="end", opacity=0.85)
    for i, v in enumerate(want):
        svg.text(centre(i), y_end + 26, v + INPUTS[i], size=11, anchor="middle", mono=True, opacity=0.85)
    return svg


FIGURES = {"blelloch_sweeps.svg": figure_sweeps}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/scan_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
