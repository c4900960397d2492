"""Draws the histogram chapter's figure as SVG, into src/images/histogram/.

The figure shows one atomic instruction of one warp: the byte each of the
32 lanes counts, the shared-memory word its count lies in and that word's
bank, for one histogram per block and for 32 copies of it, one per lane
number. The layout is read out of the kernels' own `#define SLOT(v, lane)
...` line (kernels/histogram/lane_offsets.cu, with COPIES = 1 and 32), so an
edit to the layout changes the figure on the next run and `--check` fails
until it is redrawn. The 32 bytes are one seeded draw of each of the book's
two inputs (runner/core/src/problem/histogram_u8.rs: uniform in [0, 256);
0 with probability 7/8, else uniform), drawn here with Python's random.

Standard library only. Usage, from the repository root:

    python3 bench/figures/histogram_figures.py          # write the SVG
    python3 bench/figures/histogram_figures.py --check  # exit 1 if stale
"""

import pathlib
import random
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "histogram"
OUT_DIR = ROOT / "src" / "images" / "histogram"
WARP = 32
BANKS = 32
SEED = 2026
SKEWED_SHARE = 0.875


def skew_of_problem():
    """The problem's share of zeros, so the figure's draw is the problem's."""
    rust = (ROOT / "runner" / "core" / "src" / "problem" / "histogram_u8.rs").read_text()
    share = float(expect(r"pub const SKEWED_SHARE: f64 = ([0-9.]+);", rust, "SKEWED_SHARE in histogram_u8.rs").group(1))
    if share != SKEWED_SHARE:
        sys.exit(f"histogram_figures.py: the problem's skew is {share}, the figure's {SKEWED_SHARE}; update it")
    return share


def slot_of(copies):
    """lane_offsets.cu's SLOT(v, lane) as a Python function, at COPIES =
    `copies`. The expression may use v, lane, COPIES, whole numbers, `+`,
    `*` and `%`, nothing else."""
    src = (KERNELS / "lane_offsets.cu").read_text()
    expr = expect(r"#define SLOT\(v, lane\) (.+)", src, "the SLOT definition in lane_offsets.cu").group(1).strip()
    if not re.fullmatch(r"[\s()+*%0-9a-zA-Z]+", expr) or set(re.findall(r"[A-Za-z]+", expr)) - {"v", "lane", "COPIES"}:
        sys.exit(f"histogram_figures.py: SLOT in lane_offsets.cu is `{expr}`, which this mirror cannot read; update it")
    return lambda v, lane: eval(expr, {"__builtins__": {}}, {"v": v, "lane": lane, "COPIES": copies})  # noqa: S307


def warp_bytes(skewed, share):
    """The byte each lane counts in one instruction: one seeded draw."""
    rng = random.Random(SEED + (1 if skewed else 0))
    out = []
    for _ in range(WARP):
        zero = rng.random() < share
        other = rng.randrange(256)
        out.append(0 if skewed and zero else other)
    return out


def panel_words(values, copies):
    """Per bank, the distinct words the lanes touch there, each with its bin
    and the lanes on it, in order of first use."""
    slot = slot_of(copies)
    banks = [dict() for _ in range(BANKS)]
    for lane, v in enumerate(values):
        word = slot(v, lane)
        banks[word % BANKS].setdefault(word, (v, []))[1].append(lane)
    return [list(b.values()) for b in banks]


def finding(most, shared):
    """What a panel shows, in words."""
    if most == 1 and shared == 1:
        return "every lane alone in its bank"
    banks = "no two words share a bank" if most == 1 else f"up to {most} words share a bank"
    words = "no two lanes share a word" if shared == 1 else f"up to {shared} lanes share a word"
    return f"{banks}; {words}"


def figure_lanes():
    share = skew_of_problem()
    inputs = [("uniform bytes", False), ("skewed bytes, 7/8 of them 0", True)]
    layouts = [(1, "one histogram per block", "count v is word v"),
               (32, "32 copies, one per lane number", "count v of copy l is word 32 v + l")]
    cell_w, cell_h = 20, 12
    left = 10
    width = left + BANKS * cell_w + 10
    panels, desc = [], []
    for label, skewed in inputs:
        values = warp_bytes(skewed, share)
        for copies, layout, rule in layouts:
            banks = panel_words(values, copies)
            most = max(len(b) for b in banks)
            shared = max(len(lanes) for b in banks for _, lanes in b)
            panels.append((f"{label}, {layout}", f"{rule}: {finding(most, shared)}", values, banks, most))
            desc.append(f"{label}, {layout} ({rule}): {finding(most, shared)}")
    label_h, bytes_h, gap = 44, 16, 18
    height = 60 + sum(label_h + bytes_h + max(p[4], 1) * cell_h + gap for p in panels)
    svg = Svg(
        "lanes",
        width,
        height,
        "The shared-memory word and bank of each lane's count in one atomic instruction of a warp",
        "Four panels: uniform and skewed bytes, each with one histogram per block and with 32 copies, one per lane. "
        "In each panel a row gives the byte each of the 32 lanes counts, lane 0 first; below it, 32 columns, one "
        "per bank (word w lies in bank w mod 32), bank 0 first. Each box is one word some lanes add to, labelled "
        "with its bin and, when several lanes share it, v:k for k lanes; a column of several boxes is a bank "
        "asked for several words at once. " + "; ".join(desc) + ".",
    )
    svg.text(left, 16, "One atomic instruction of a warp: each lane's byte, and the bank of the word it adds to", size=12, weight="bold")
    svg.text(left, 32, "numbers: the bytes of lanes 0 to 31; boxes: the words banks 0 to 31 are asked for, v:k for bin v's word with k lanes", size=9, opacity=0.8)
    svg.text(left, 45, "on it; orange: a bank asked for several words, or a word added to by several lanes", size=9, opacity=0.8)
    y = 60
    for title, rule, values, banks, most in panels:
        svg.text(left, y + 11, title, size=11, weight="bold")
        svg.text(left, y + 25, rule, size=10)
        by = y + label_h - 6
        svg.open(font_size=7.5, text_anchor="middle", font_family="monospace", fill_opacity=0.8)
        for lane, v in enumerate(values):
            svg.items.append(f'<text x="{left + lane * cell_w + cell_w / 2:.1f}" y="{by:.1f}">{v}</text>')
        svg.close()
        gy = by + bytes_h - 8
        svg.open(fill="none", stroke="currentColor", stroke_width=0.3, stroke_opacity=0.35)
        for b in range(BANKS):
            svg.rect(left + b * cell_w, gy, cell_w, max(most, 1) * cell_h)
        svg.close()
        labels = []
        for b, words in enumerate(banks):
            for k, (v, lanes) in enumerate(words):
                colour = ORANGE if len(words) > 1 or len(lanes) > 1 else BLUE
                svg.rect(left + b * cell_w, gy + k * cell_h, cell_w, cell_h, fill=colour, fill_opacity=0.55,
                         stroke="currentColor", stroke_width=0.4)
                text = str(v) if len(lanes) == 1 else f"{v}:{len(lanes)}"
                labels.append((left + b * cell_w + cell_w / 2, gy + k * cell_h + cell_h - 3.5, text))
        for x, ty, text in labels:
            svg.text(x, ty, text, size=6.5, anchor="middle", mono=True)
        y += label_h + bytes_h + max(most, 1) * cell_h + gap
    return svg


FIGURES = {"lanes.svg": figure_lanes}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/histogram_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
