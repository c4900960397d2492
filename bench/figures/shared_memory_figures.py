"""Draws the shared-memory chapter's figure as SVG, into src/images/shared-memory/.

The figure shows, for each layout the chapter measures, the bank of the
word each lane of a warp touches. The layouts are read out of the kernels'
own `#define SLOT(lane) ...` lines (kernels/shared-memory/*.cu) and
evaluated for lanes 0 to 31, so an edit to a kernel's layout changes the
figure on the next run, and `--check` fails until it is redrawn.

Standard library only. Usage, from the repository root:

    python3 bench/figures/shared_memory_figures.py          # write the SVG
    python3 bench/figures/shared_memory_figures.py --check  # exit 1 if stale
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "shared-memory"
OUT_DIR = ROOT / "src" / "images" / "shared-memory"
WARP = 32
BANKS = 32

# (kernel file, label): the layouts the figure draws, in the page's order.
LAYOUTS = [
    ("stride_1.cu", "stride 1"),
    ("stride_2.cu", "stride 2"),
    ("stride_32.cu", "stride 32"),
    ("padded.cu", "padded, 33·k"),
    ("swizzled.cu", "swizzled, 32·k + (7 ^ k)"),
]


def slot_of(file):
    """The kernel's SLOT(lane) as a Python function of the lane, from its
    `#define SLOT(lane) EXPR` line. EXPR may use the lane, whole numbers
    (with C's `u` suffix), `+`, `*` and `^`, nothing else."""
    src = (KERNELS / file).read_text()
    expr = expect(r"#define SLOT\(lane\) (.+)", src, f"the SLOT definition in {file}").group(1).strip()
    python = re.sub(r"(\d+)u\b", r"\1", expr)
    if not re.fullmatch(r"[\s()+*^0-9a-z]+", python) or set(re.findall(r"[a-z]+", python)) - {"lane"}:
        sys.exit(f"shared_memory_figures.py: SLOT in {file} is `{expr}`, which this mirror cannot read; update it")
    return lambda lane: eval(python, {"__builtins__": {}}, {"lane": lane})  # noqa: S307


def layout_words(file):
    slot = slot_of(file)
    words = [slot(k) for k in range(WARP)]
    assert len(set(words)) == WARP, f"{file}: two lanes share a word, so the rotation would lose values"
    return words


def figure_banks():
    panels = [(label, file, layout_words(file)) for file, label in LAYOUTS]
    cell_w, cell_h = 17, 8
    label_h, gap = 30, 22
    heights = [max(sum(1 for w in words if w % BANKS == b) for b in range(BANKS)) for _, _, words in panels]
    left = 10
    width = left + BANKS * cell_w + 10
    height = 40 + sum(label_h + h * cell_h + gap for h in heights) + 10
    desc_parts = []
    for (label, _, words), most in zip(panels, heights):
        desc_parts.append(f"{label}: at most {most} lanes' words in one bank")
    svg = Svg(
        "banks",
        width,
        height,
        "Which bank each lane of a warp touches, for five shared-memory layouts",
        "Five panels, one per layout, each with 32 columns, one per bank (word w lies in bank w mod 32). "
        "Each lane of a warp is a small box in the column of its word's bank, labelled with the lane; a column "
        "holding several boxes is a bank that must serve several words one after another. "
        + "; ".join(desc_parts)
        + ".",
    )
    svg.text(left, 16, "bank of the word lane k keeps its value in (word w is in bank w mod 32)", size=12, weight="bold")
    y = 40
    for (label, file, words), most in zip(panels, heights):
        ways = "no conflict" if most == 1 else f"{most}-way conflict"
        svg.text(left, y + 12, f"{label}  ({file}): {ways}", size=11, mono=True)
        gy = y + 18
        for b in range(0, BANKS, 4):
            svg.text(left + b * cell_w + cell_w / 2, gy + 8, b, size=8, anchor="middle", opacity=0.7, mono=True)
        gy += 12
        colour = BLUE if most == 1 else ORANGE
        svg.open(fill="none", stroke="currentColor", stroke_width=0.3, stroke_opacity=0.35)
        for b in range(BANKS):
            svg.rect(left + b * cell_w, gy, cell_w, max(most, 1) * cell_h)
        svg.close()
        stacks = [0] * BANKS
        svg.open(fill=colour, fill_opacity=0.55, stroke="currentColor", stroke_width=0.4)
        labels = []
        for lane, w in enumerate(words):
            b = w % BANKS
            cy = gy + stacks[b] * cell_h
            svg.rect(left + b * cell_w, cy, cell_w, cell_h)
            labels.append((left + b * cell_w + cell_w / 2, cy + cell_h - 1.5, lane))
            stacks[b] += 1
        svg.close()
        for x, ty, lane in labels:
            svg.text(x, ty, lane, size=6.5, anchor="middle", mono=True)
        y += label_h + most * cell_h + gap
    return svg


FIGURES = {"banks.svg": figure_banks}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/shared_memory_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
