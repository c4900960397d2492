"""Draws the figure of the matrix multiply chapter as SVG, into
src/images/matmul/warp_tile.svg, from the tile arithmetic of the kernels
it explains (checked against their files):

- the 32 x 64 tile of C of one warp of kernels/matmul/sgemm.cuh at
  TM = TN = 8: lane l's first row is 4 (l / 8) and first column 4 (l % 8),
  and its four 4 x 4 sub-tiles lie 16 rows and 32 columns apart
  (`wm0 + g * 16`, `wn0 + h * 32`); each cell is shaded by the lane that
  computes it, lanes 0 to 7 (the first quarter-warp) outlined;
- the float4 of a row of A's and of B's slice that those 8 lanes read at
  one step, and, for matmul/vec (a warp of 2 x 16 threads, thread tx
  reading columns 8 tx to 8 tx + 7), the float4 of B's row its first
  quarter-warp reads, each float4 labelled by the group of 4 banks it
  lies in: 8 different groups for sgemm.cuh, 4 groups twice for vec.

A kernel edit that the mirror no longer matches stops the script with the
line it expected. Drawing helpers are those of reductions_figures.py.

Standard library only. Usage, from the repository root:

    python3 bench/figures/matmul_figure.py          # write the SVG
    python3 bench/figures/matmul_figure.py --check  # exit 1 if stale
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "matmul"
OUT_DIR = ROOT / "src" / "images" / "matmul"
WARP, QUARTER, BANKS = 32, 8, 32
TM = TN = 8
WM, WN = 4 * TM, 8 * TN  # a warp's tile in sgemm.cuh


def source(name):
    return (KERNELS / name).read_text()


def check_sources():
    s = source("sgemm.cuh")
    expect(r"static constexpr int WM = 4 \* TM, WN = 8 \* TN;", s, "the warp tile of sgemm.cuh")
    expect(r"wm0 = \(warp / S::WARPS_N\) \* S::WM \+ \(lane / 8\) \* 4;", s, "the thread's first row in sgemm.cuh")
    expect(r"wn0 = \(warp % S::WARPS_N\) \* S::WN \+ \(lane % 8\) \* 4;", s, "the thread's first column in sgemm.cuh")
    expect(r"&as\[s\]\[kk\]\[wm0 \+ g \* 16\]", s, "the float4 of A in sgemm.cuh")
    expect(r"&bs\[s\]\[kk\]\[wn0 \+ h \* 32\]", s, "the float4 of B in sgemm.cuh")
    d = source("double_buffer.cu")
    expect(r"sgemm<128, 128, 8, 8, 8, 2>", d, "double_buffer.cu's tiles")
    v = source("vec.cu")
    expect(r"const unsigned ty = t / \(BN / TN\), tx = t % \(BN / TN\);", v, "the thread of vec.cu")
    expect(r"&bs\[kk\]\[tx \* TN \+ j\]", v, "the float4 of B in vec.cu")
    expect(r"#define TN 8\b", v, "TN of vec.cu")


def sgemm_cells(lane):
    """The (row, column) elements of the warp's tile lane `lane` computes."""
    r0, c0 = (lane // 8) * 4, (lane % 8) * 4
    return [(r0 + g * 16 + i, c0 + h * 32 + j) for g in range(TM // 4) for h in range(TN // 4)
            for i in range(4) for j in range(4)]


def sgemm_float4(lane):
    """The first float of A's and of B's float4 (g = h = 0) that `lane`
    reads at one step, in the warp's rows and columns."""
    return (lane // 8) * 4, (lane % 8) * 4


def vec_b_float4(lane):
    """The first float of vec's first float4 of B (j = 0) for `lane`: tx is
    lane % 16 in a warp of 2 x 16 threads."""
    return (lane % 16) * TN


def bank_group(col):
    """The group of 4 banks of a float4 starting at column `col` of a row
    whose first float lies in bank 0 (rows of B's slice are BN = 128 floats,
    a multiple of 32)."""
    return (col % BANKS) // 4


def lane_colour(lane):
    return f"hsl({lane * 360 // WARP}, 65%, 55%)"


def draw():
    check_sources()
    # Every element of the warp's tile computed by exactly one lane.
    owner = {}
    for lane in range(WARP):
        for cell in sgemm_cells(lane):
            assert cell not in owner, f"element {cell} computed twice"
            owner[cell] = lane
    assert len(owner) == WM * WN
    cell = 7
    left, top = 10, 40
    width = left + WN * cell + 20
    b_top = top + WM * cell + 50
    height = b_top + 3 * 46 + 10
    svg = Svg(
        "matmul-warp-tile",
        width,
        height,
        "Which lane of a warp computes each element of its tile of C, and what the first quarter-warp reads",
        "A 32 by 64 grid, the tile of C of one warp of sgemm.cuh, each cell shaded by the lane that computes it: "
        "lane l computes four 4 by 4 blocks, at rows 4 (l / 8) and 4 (l / 8) + 16 and columns 4 (l % 8) and "
        "4 (l % 8) + 32. Lanes 0 to 7 are outlined. Below, a row of A's slice and a row of B's slice as float4s: "
        "lanes 0 to 7 all read the first float4 of A, and 8 neighbouring float4 of B, one in each group of 4 "
        "banks. For matmul/vec, whose warp is 2 by 16 threads each reading 8 neighbouring columns, lanes 0 to 7 "
        "read every other float4 of B's row, two in each of 4 groups of banks.",
    )
    svg.text(left, 14, "sgemm.cuh: one warp's 32 × 64 tile of C, by lane", size=11.5, weight="bold")
    svg.text(left, 28, "4 × 8 lanes, four 4 × 4 sub-tiles each; lanes 0–7 outlined", size=10.5)
    for (r, c), lane in sorted(owner.items()):
        svg.rect(left + c * cell, top + r * cell, cell, cell, fill=lane_colour(lane), fill_opacity=0.75)
    svg.open(fill="none", stroke="currentColor", stroke_width=1.4)
    for lane in range(QUARTER):
        r0, c0 = (lane // 8) * 4, (lane % 8) * 4
        for g in range(TM // 4):
            for h in range(TN // 4):
                svg.rect(left + (c0 + h * 32) * cell, top + (r0 + g * 16) * cell, 4 * cell, 4 * cell)
    svg.close()
    svg.rect(left, top, WN * cell, WM * cell, fill="none", stroke="currentColor", stroke_width=0.8)

    def row_of_float4(y, floats, label, reads, colour):
        """A row of `floats` floats as float4 boxes; `reads` maps the first
        float of a read float4 to its label."""
        svg.text(left, y - 6, label, size=10.5, mono=True)
        box = 4 * cell
        for q in range(floats // 4):
            x = left + q * box
            first = 4 * q
            hit = first in reads
            svg.rect(x, y, box, 14, fill=colour if hit else "none", fill_opacity=0.55 if hit else None,
                     stroke="currentColor", stroke_width=0.6, stroke_opacity=1 if hit else 0.35)
            if hit:
                svg.text(x + box / 2, y + 10.5, reads[first], size=9, anchor="middle")

    a_first = {sgemm_float4(lane)[0] for lane in range(QUARTER)}
    assert a_first == {0}, "a quarter-warp of sgemm.cuh reads one float4 of A"
    row_of_float4(b_top, WM, "sgemm.cuh, A's slice, the warp's 32 rows: lanes 0–7", {0: "0–7"}, ORANGE)
    b_reads = {sgemm_float4(lane)[1]: f"g{bank_group(sgemm_float4(lane)[1])}" for lane in range(QUARTER)}
    assert len({bank_group(c) for c in b_reads}) == QUARTER, "8 float4 in 8 groups of banks"
    row_of_float4(b_top + 46, WN, "sgemm.cuh, B's slice, the warp's 64 columns: bank groups", b_reads, BLUE)
    v_reads = {vec_b_float4(lane): f"g{bank_group(vec_b_float4(lane))}" for lane in range(QUARTER)}
    assert len({bank_group(c) for c in v_reads}) == QUARTER // 2, "vec: 8 float4 in 4 groups of banks"
    row_of_float4(b_top + 92, WN, "matmul/vec, B's slice, 64 columns: bank groups", v_reads, BLUE)
    return svg


FIGURES = {"warp_tile.svg": draw}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/matmul_figure.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
