"""Draws the atomics chapter's figure as SVG, into src/images/atomics/.

For each way the chapter's kernels add n floats, the figure shows one block
of 128 threads (four warps, drawn small; the kernels' blocks have 256) and
which address each thread's atomicAdd updates: the one total `out`, one of
the slots of the spread-address kernels, the block's shared float, or none
(a lane whose value a shuffle carried to lane 0). The slot of each thread is
evaluated from the kernels' own `#define SLOT(i) ...` lines (four slots drawn
where the kernels sweep from 1 to 32768), and the lines that decide who
makes an atomic are checked to be in the kernel files, so an edit to either
stops the script or changes the figure on the next run.

Standard library only. Usage, from the repository root:

    python3 bench/figures/atomics_figures.py          # write the SVG
    python3 bench/figures/atomics_figures.py --check  # exit 1 if stale
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, GREEN, ORANGE, PURPLE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels"
OUT_DIR = ROOT / "src" / "images" / "atomics"
WARP = 32
BLOCK = 128  # drawn: four warps
DRAWN_SLOTS = 4
SLOT_COLOURS = [BLUE, ORANGE, GREEN, PURPLE]
SHARED = "#d4a72c"

# Lines each kernel must contain for the mirror below to draw what it does.
LINES = {
    "reductions/atomic_per_element.cu": ["atomicAdd(out, x[i]);"],
    "atomics/slots.cuh": ["atomicAdd(&slots[SLOT(i) % SLOTS], x[i]);"],
    "atomics/warp_aggregated.cu": ["v += __shfl_down_sync(0xffffffffu, v, offset);", "if (threadIdx.x % 32 == 0) {", "atomicAdd(out, v);"],
    "atomics/shared_atomics.cu": ["atomicAdd(&block_total, x[i]);", "atomicAdd(out, block_total);"],
    "atomics/warp_shared.cu": [
        "v += __shfl_down_sync(0xffffffffu, v, offset);",
        "if (threadIdx.x % 32 == 0) {",
        "atomicAdd(&block_total, v);",
        "atomicAdd(out, block_total);",
    ],
}


def source(path):
    return (KERNELS / path).read_text()


def check_lines():
    for file, lines in LINES.items():
        src = source(file)
        for line in lines:
            expect(re.escape(line), src, f"`{line}` in kernels/{file}")


def slot_of(file):
    """SLOT(i) of a spread-address kernel as a Python function, from its
    `#define SLOT(i) EXPR` line: EXPR may use i, whole numbers, `/`, `%`,
    `*`, `+` and parentheses (C's unsigned arithmetic on whole numbers)."""
    expr = expect(r"#define SLOT\(i\) (.+)", source(file), f"the SLOT definition in kernels/{file}").group(1).strip()
    if not re.fullmatch(r"[\s()+*/%0-9i]+", expr):
        sys.exit(f"atomics_figures.py: SLOT in {file} is `{expr}`, which this mirror cannot read; update it")
    python = expr.replace("/", "//")
    return expr, lambda i: eval(python, {"__builtins__": {}}, {"i": i}) % DRAWN_SLOTS  # noqa: S307


def shown(expr):
    """`(i / 32)` as `(i / 32)` and `(i)` as `i`: the expression as the
    page would write it before `% SLOTS`."""
    inner = expr[1:-1] if expr.startswith("(") and expr.endswith(")") else expr
    return inner if re.fullmatch(r"[0-9a-z]+", inner) else f"({inner})"


def rows():
    """(label, file, target of each thread, text): a target is a slot
    number, 'shared', or None for no atomic."""
    check_lines()
    out = []
    out.append(("one address", "reductions/atomic_per_element", [0] * BLOCK, f"{BLOCK} updates of out"))
    for name in ("slots_by_lane", "slots_by_warp"):
        expr, slot = slot_of(f"atomics/{name}.cu")
        targets = [slot(i) for i in range(BLOCK)]
        per_instr = max(len(set(targets[w * WARP : (w + 1) * WARP])) for w in range(BLOCK // WARP))
        counts = [targets.count(s) for s in range(DRAWN_SLOTS)]
        assert len(set(counts)) == 1
        out.append(
            (
                f"slot {shown(expr)} % {DRAWN_SLOTS}",
                f"atomics/{name}",
                targets,
                f"{counts[0]} updates of each of {DRAWN_SLOTS} slots; a warp's instruction hits {per_instr}",
            )
        )
    lane0 = [0 if i % WARP == 0 else None for i in range(BLOCK)]
    out.append(("shuffle, lane 0 adds", "atomics/warp_aggregated", lane0, f"{BLOCK // WARP} updates of out, one a warp"))
    out.append(
        ("shared float, then out", "atomics/shared_atomics", ["shared"] * BLOCK, f"{BLOCK} updates of the shared float, then 1 of out")
    )
    lane0s = ["shared" if i % WARP == 0 else None for i in range(BLOCK)]
    out.append(
        ("shuffle, shared, then out", "atomics/warp_shared", lane0s, f"{BLOCK // WARP} updates of the shared float, then 1 of out")
    )
    return out


def figure_update_targets():
    table = rows()
    left, label_w, cell_w, cell_h, row_h = 8, 200, 3.6, 14, 40
    grid_x = left + label_w
    grid_w = BLOCK * cell_w
    text_x = grid_x + grid_w + 12
    width = text_x + 330
    top = 48
    height = top + len(table) * row_h + 30
    svg = Svg(
        "update-targets",
        width,
        height,
        "Which address each thread of a block updates, for the atomics chapter's kernels",
        f"One row per kernel, each a block of {BLOCK} threads (four warps) drawn as cells, coloured by the "
        f"address its atomicAdd updates ({DRAWN_SLOTS} slots drawn for the spread-address kernels), hollow where "
        "the thread makes no atomic because a shuffle carried its value to lane 0. "
        + "; ".join(f"{file}: {text}" for _, file, _, text in table)
        + ".",
    )
    svg.text(left, 14, f"the address each thread's atomicAdd updates, one block of {BLOCK} threads (four warps)", weight="bold")
    for w in range(BLOCK // WARP):
        svg.text(grid_x + (w + 0.5) * WARP * cell_w, 36, f"warp {w}", size=10, anchor="middle", opacity=0.8)
    for r, (label, file, targets, text) in enumerate(table):
        y = top + r * row_h
        svg.text(left, y + 11, label, size=11)
        svg.text(left, y + 25, file, size=9, mono=True, opacity=0.75)
        groups = {}
        for i, t in enumerate(targets):
            groups.setdefault(t, []).append(i)
        for t, threads in groups.items():
            if t is None:
                svg.open(fill="none", stroke="currentColor", stroke_width=0.4, stroke_opacity=0.4)
            elif t == "shared":
                svg.open(fill=SHARED, fill_opacity=0.65, stroke="none")
            else:
                svg.open(fill=SLOT_COLOURS[t], fill_opacity=0.65, stroke="none")
            for i in threads:
                svg.rect(grid_x + i * cell_w + 0.3, y + 2, cell_w - 0.6, cell_h)
            svg.close()
        svg.open(stroke="currentColor", stroke_width=0.8, stroke_opacity=0.6)
        for w in range(1, BLOCK // WARP):
            x = grid_x + w * WARP * cell_w
            svg.line(x, y, x, y + cell_h + 4)
        svg.close()
        svg.text(text_x, y + 13, text, size=10)
    ky = top + len(table) * row_h + 8
    kx = grid_x
    for s in range(DRAWN_SLOTS):
        svg.rect(kx, ky, 10, 10, fill=SLOT_COLOURS[s], fill_opacity=0.65)
        svg.text(kx + 14, ky + 9, "out, or slot 0" if s == 0 else f"slot {s}", size=10)
        kx += 100 if s == 0 else 62
    svg.rect(kx, ky, 10, 10, fill=SHARED, fill_opacity=0.65)
    svg.text(kx + 14, ky + 9, "the block's shared float", size=10)
    kx += 150
    svg.rect(kx, ky, 10, 10, fill="none", stroke="currentColor", stroke_width=0.4, stroke_opacity=0.4)
    svg.text(kx + 14, ky + 9, "no atomic", size=10)
    return svg


FIGURES = {"update_targets.svg": figure_update_targets}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/atomics_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
