"""Draws the SIMT chapter's figure as SVG, into src/images/simt/.

The figure shows, for each branch condition the chapter measures, which
path every lane of the eight warps of a 256-thread block takes. The
conditions are read out of the kernels' own `if (...)` lines
(kernels/simt/branch_*.cu, the values of BIT out of branch_bit.cu's
`[sweep]`) and evaluated for every thread, so an edit to a kernel's
condition changes the figure on the next run, and `--check` fails until it
is redrawn.

Standard library only. Usage, from the repository root:

    python3 bench/figures/simt_figures.py          # write the SVG
    python3 bench/figures/simt_figures.py --check  # exit 1 if stale
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, expect, header_int, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "simt"
OUT_DIR = ROOT / "src" / "images" / "simt"
WARP = 32


def source(file):
    return (KERNELS / file).read_text()


def condition(file):
    """The kernel's branch condition as a Python function of (tid, bid, bit):
    the first `if (...)` after `float v = x[i];`. It may use threadIdx.x,
    blockIdx.x, BIT, whole numbers and `&`, nothing else."""
    src = source(file)
    expr = expect(r"float v = x\[i\];\s*(?://[^\n]*\n\s*)*if \((.+)\) \{", src, f"the branch in {file}").group(1)
    python = expr.replace("threadIdx.x", "tid").replace("blockIdx.x", "bid").replace("BIT", "bit")
    if not re.fullmatch(r"[\s()&0-9a-z]+", python) or set(re.findall(r"[a-z]+", python)) - {"tid", "bid", "bit"}:
        sys.exit(f"simt_figures.py: the condition in {file} is `{expr}`, which this mirror cannot read; update it")
    return expr, lambda tid, bid, bit: bool(eval(python, {"__builtins__": {}}, {"tid": tid, "bid": bid, "bit": bit}))  # noqa: S307


def swept_bits():
    src = source("branch_bit.cu")
    values = expect(r"(?m)^BIT\s*=\s*\[([0-9,\s]+)\]", src, "the BIT sweep in branch_bit.cu").group(1)
    return [int(v) for v in values.split(",")]


def rows():
    """(label, file, block index, path per thread) for every row drawn."""
    block = header_int(source("branch_lane.cu"), "block", "branch_lane.cu")
    for file in ("branch_bit.cu", "branch_block.cu"):
        assert header_int(source(file), "block", file) == block, f"{file}: another block size"
    out = []
    lane_expr, lane = condition("branch_lane.cu")
    out.append((f"{lane_expr}   (branch_lane, branch_bit with BIT = 1)", 0, [lane(t, 0, None) for t in range(block)]))
    bit_expr, bit = condition("branch_bit.cu")
    bits = swept_bits()
    for b in (16, 32, 128):
        assert b in bits, f"BIT = {b} is not swept in branch_bit.cu"
        shown = bit_expr.replace("BIT", str(b))
        out.append((f"{shown}   (branch_bit, BIT = {b})", 0, [bit(t, 0, b) for t in range(block)]))
    block_expr, blk = condition("branch_block.cu")
    for bid in (0, 1):
        out.append((f"{block_expr}   (branch_block), block {bid}", bid, [blk(t, bid, None) for t in range(block)]))
    return block, out


def both_paths(paths, block):
    """How many warps hold lanes of both paths."""
    return sum(1 for w in range(block // WARP) if len(set(paths[w * WARP:(w + 1) * WARP])) == 2)


def figure_warp_paths():
    block, drawn = rows()
    warps = block // WARP
    lane_w, warp_gap, cell_h = 2.5, 5, 14
    left, label_h, row_gap, count_w = 0, 15, 9, 120
    warp_w = WARP * lane_w
    grid_w = warps * warp_w + (warps - 1) * warp_gap
    width = left + grid_w + 10 + count_w
    top = 48
    height = top + len(drawn) * (label_h + cell_h + row_gap) + 44
    counts = [both_paths(paths, block) for _, _, paths in drawn]
    desc = "; ".join(f"{label.split('   ')[0]}: {c} of {warps} warps hold both paths" for (label, _, _), c in zip(drawn, counts))
    svg = Svg(
        "warp-paths",
        width,
        height,
        f"Which path each lane of a {block}-thread block takes, for the chapter's branch conditions",
        f"One row per condition, each showing the {warps} warps of a block side by side, {WARP} lanes each; a lane "
        f"is filled in one colour when the condition holds (it subtracts) and in another when it does not (it "
        f"multiply-adds). {desc}.",
    )
    svg.text(left, 14, f"the path of every thread of a block, warp by warp ({WARP} lanes each)", size=12, weight="bold")
    for w in range(warps):
        svg.text(left + w * (warp_w + warp_gap) + warp_w / 2, top - 8, f"warp {w}", size=10, anchor="middle", opacity=0.85)
    svg.text(left + grid_w + 10 + count_w / 2, top - 8, "warps with both", size=10, anchor="middle", opacity=0.85)
    y = top
    for (label, _, paths), count in zip(drawn, counts):
        svg.text(left, y + 11, label, size=10.5, mono=True)
        gy = y + label_h
        for taken, colour in ((True, ORANGE), (False, BLUE)):
            svg.open(fill=colour, fill_opacity=0.6 if taken else 0.45)
            t = 0
            while t < block:
                if paths[t] != taken:
                    t += 1
                    continue
                run = t
                while run < block and paths[run] == taken and run // WARP == t // WARP:
                    run += 1
                w, lane = divmod(t, WARP)
                svg.rect(left + w * (warp_w + warp_gap) + lane * lane_w, gy, (run - t) * lane_w, cell_h)
                t = run
            svg.close()
        svg.open(fill="none", stroke="currentColor", stroke_width=0.6)
        for w in range(warps):
            svg.rect(left + w * (warp_w + warp_gap), gy, warp_w, cell_h)
        svg.close()
        svg.text(left + grid_w + 10 + count_w / 2, gy + 11, f"{count} of {warps}", size=11, anchor="middle", mono=True, weight="bold")
        y += label_h + cell_h + row_gap
    ly = height - 34
    svg.open(fill=ORANGE, fill_opacity=0.6)
    svg.rect(left, ly, 16, 12)
    svg.close()
    svg.text(left + 22, ly + 10, "condition true: v = b - v (path_sub)", size=11)
    svg.open(fill=BLUE, fill_opacity=0.45)
    svg.rect(left + 260, ly, 16, 12)
    svg.close()
    svg.text(left + 282, ly + 10, "condition false: v = fmaf(v, a, b) (path_fma)", size=11)
    svg.text(left, height - 6, "Evaluated from the kernels' conditions for every thread; which warps run both paths, not how long they take.", size=10, opacity=0.8)
    return svg


FIGURES = {"warp_paths.svg": figure_warp_paths}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/simt_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
