"""Draws the figure of "The machine, measured" as SVG, into src/images/machine/.

The figure shows the index arithmetic of kernels/machine/scale.cu: which
element each thread of each block takes. The formula is read out of the
kernel (`i = blockIdx.x * blockDim.x + threadIdx.x`) and the grid out of
its header (`grid = "ceil_div(n, 256)"`), and both are applied here, for a
small grid drawn to scale (blocks of 8 threads over n = 28 elements, so
that every thread fits on the page); the kernel's 256 threads a block work
the same way. A kernel edit that changes the formula or the guard stops
the script with the line it expected.

Standard library only. Usage, from the repository root:

    python3 bench/figures/machine_figures.py          # write the SVG
    python3 bench/figures/machine_figures.py --check  # exit 1 if stale
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from reductions_figures import BLUE, GREEN, ORANGE, PURPLE, Svg, eval_grid, expect, header_grid, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = ROOT / "kernels" / "machine" / "scale.cu"
OUT_DIR = ROOT / "src" / "images" / "machine"

# The drawn example: small enough that each thread is a box with its name.
DRAWN_BLOCK = 8
DRAWN_N = 28
BLOCK_COLOURS = [BLUE, ORANGE, GREEN, PURPLE]


def scale_source():
    """The kernel's index formula, guard and grid formula, as the figure
    mirrors them; the script stops if any is not what it mirrors."""
    source = KERNEL.read_text()
    expect(
        r"unsigned int i = blockIdx\.x \* blockDim\.x \+ threadIdx\.x;",
        source,
        "the index `i = blockIdx.x * blockDim.x + threadIdx.x` in kernels/machine/scale.cu",
    )
    expect(r"if \(i < n\)", source, "the guard `if (i < n)` in kernels/machine/scale.cu")
    grid = header_grid(source, "kernels/machine/scale.cu")
    block = int(expect(r"(?m)^block\s*=\s*(\d+)\s*$", source, "`block = N` in kernels/machine/scale.cu").group(1))
    if grid != f"ceil_div(n, {block})":
        sys.exit(f"machine_figures.py: grid {grid!r} is not ceil_div(n, block); update the mirror")
    return grid.replace(str(block), "block")


def threads(n, block, grid_formula):
    """(block index, thread index, global index, has an element) for every
    thread of the launch, by the kernel's own formula."""
    grid = eval_grid(grid_formula.replace("block", str(block)), n, 0)
    out = []
    for b in range(grid):
        for t in range(block):
            i = b * block + t
            out.append((b, t, i, i < n))
    return grid, out


def index_figure():
    grid_formula = scale_source()
    grid, launch = threads(DRAWN_N, DRAWN_BLOCK, grid_formula)
    # Every element is taken by exactly one thread, and only the last
    # block has threads without one.
    taken = sorted(i for _, _, i, has in launch if has)
    assert taken == list(range(DRAWN_N)), "each element once"
    idle = [(b, t) for b, t, _, has in launch if not has]
    assert all(b == grid - 1 for b, _ in idle)

    box, gap, left, top = 26.0, 10.0, 20.0, 64.0
    width = left * 2 + grid * DRAWN_BLOCK * box + (grid - 1) * gap
    height = top + 3 * box + 120
    svg = Svg(
        "machine-index",
        width,
        height,
        "Which element each thread takes: i = blockIdx.x * blockDim.x + threadIdx.x",
        f"A grid of {grid} blocks of {DRAWN_BLOCK} threads over n = {DRAWN_N} elements. "
        f"Block b's thread t takes element b * {DRAWN_BLOCK} + t; the last block's last "
        f"{len(idle)} threads fall past the end and the guard i < n keeps them from writing.",
    )
    svg.text(left, 20, f"grid = ceil_div(n, blockDim.x) = ceil_div({DRAWN_N}, {DRAWN_BLOCK}) = {grid} blocks; "
             f"blockDim.x = {DRAWN_BLOCK} threads (the kernel uses 256)", size=13)
    svg.text(left, 40, "i = blockIdx.x * blockDim.x + threadIdx.x", size=13, mono=True)
    for b in range(grid):
        x0 = left + b * (DRAWN_BLOCK * box + gap)
        colour = BLOCK_COLOURS[b % len(BLOCK_COLOURS)]
        # The block's frame and name.
        svg.rect(x0 - 3, top - 3, DRAWN_BLOCK * box + 6, box * 3 + 24, fill=colour, fill_opacity=0.10,
                 stroke=colour, stroke_width=1.5, rx=4)
        svg.text(x0 + DRAWN_BLOCK * box / 2, top + box * 3 + 16, f"blockIdx.x = {b}", anchor="middle", size=12)
        for t in range(DRAWN_BLOCK):
            i = b * DRAWN_BLOCK + t
            has = i < DRAWN_N
            x = x0 + t * box
            # Row 1: threadIdx.x; row 2: i; row 3: the element, or none.
            svg.rect(x + 1, top + 1, box - 2, box - 2, fill=colour, fill_opacity=0.35 if has else 0.08,
                     stroke="currentColor", stroke_opacity=0.5, stroke_width=0.8)
            svg.text(x + box / 2, top + box * 0.65, t, anchor="middle", size=11, mono=True)
            svg.text(x + box / 2, top + box * 1.65, i, anchor="middle", size=11, mono=True,
                     opacity=None if has else 0.45)
            if has:
                svg.text(x + box / 2, top + box * 2.65, "y", anchor="middle", size=11, mono=True)
            else:
                svg.text(x + box / 2, top + box * 2.65, "\u2013", anchor="middle", size=11, opacity=0.6)
    # Row labels at the right-hand end of the first rows.
    legend_y = top + box * 3 + 48
    svg.text(left, legend_y, "row 1: threadIdx.x (0 to blockDim.x - 1 in every block)", size=12)
    svg.text(left, legend_y + 20, "row 2: i, the element the thread takes", size=12)
    svg.text(left, legend_y + 40, f"row 3: y[i] written, or \u2013 where i \u2265 n (the guard i < n)", size=12)
    svg.text(left, legend_y + 60, f"{len(idle)} threads of the last block have no element; every element has one thread", size=12)
    return svg


FIGURES = {"index.svg": index_figure}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/machine_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
