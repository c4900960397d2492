"""Draws the grid-stride chapter's figures as SVG, into src/images/grid-stride/.

- index_map.svg: which thread of which block handles each element, for a
  launch of one thread per element and for a grid-stride loop, on a toy
  size, evaluated with the kernels' own index arithmetic (the lines of
  kernels/grid-stride/add_per_thread.cu and add_blocks_per_sm.cu that
  compute `i`, checked to be there).
- waves.svg: how the blocks of the chapter's launches fall into waves: for
  each value of add_blocks_per_sm's BLOCKS, the blocks one SM receives, and
  for each size of fma_tiles, the blocks of the grid against the
  multiprocessors' block slots. Computed from the headers' grid formulas,
  the SM count of the results store, and a residency of 2048 threads per
  SM (eight blocks of 256), which holds because each kernel's SASS listing
  (results/sass/grid-stride/) uses at most 32 registers a thread. Counted,
  not measured.

Standard library only. Usage, from the repository root:

    python3 bench/figures/grid_stride_figures.py          # write the SVGs
    python3 bench/figures/grid_stride_figures.py --check  # exit 1 if stale
"""

import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import (  # noqa: E402
    BLUE,
    GREEN,
    ORANGE,
    PURPLE,
    Svg,
    eval_grid,
    expect,
    header_grid,
    header_int,
    write_figures,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "grid-stride"
OUT_DIR = ROOT / "src" / "images" / "grid-stride"
THREADS_PER_SM = 2048  # compute capability 9.0
REGISTERS_PER_SM = 65536
BLOCK_COLOURS = [BLUE, ORANGE, GREEN, PURPLE]


def source(file):
    return (KERNELS / file).read_text()


def sm_count():
    store = json.loads((ROOT / "results" / "vector-add" / "add.json").read_text())
    return store["gpu"]["sm_count"]


def blocks_per_sm(file, kernel):
    """Resident blocks of 256 per SM for `kernel`: the thread limit, checked
    against the registers of its SASS listing when there is one."""
    block = header_int(source(file), "block", file)
    resident = THREADS_PER_SM // block
    listing = ROOT / "results" / "sass" / "grid-stride" / file.replace(".cu", ".json")
    if listing.exists():
        for k in json.loads(listing.read_text())["kernels"]:
            if k["name"] == kernel:
                assert k["registers"] * block * resident <= REGISTERS_PER_SM, f"{file}: registers limit residency"
    return block, resident


# ---------------------------------------------------------------- index map

PER_THREAD_LINES = [
    "unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;",
    "if (i < n) {",
]
GRID_STRIDE_LINES = [
    "unsigned int stride = gridDim.x * blockDim.x;",
    "for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {",
]


def per_thread_owner(n, block):
    """add_per_thread: grid ceil_div(n, block); element i -> (block, thread)."""
    grid = -(-n // block)
    owner = {}
    for b in range(grid):
        for t in range(block):
            i = b * block + t
            if i < n:
                owner[i] = (b, t, 0)
    idle = grid * block - n
    return grid, owner, idle


def grid_stride_owner(n, block, grid):
    """add_grid_stride: element i -> (block, thread, trip)."""
    stride = grid * block
    owner = {}
    for b in range(grid):
        for t in range(block):
            i, trip = b * block + t, 0
            while i < n:
                owner[i] = (b, t, trip)
                i += stride
                trip += 1
    return owner


def figure_index_map():
    for line in PER_THREAD_LINES:
        expect(re.escape(line), source("add_per_thread.cu"), f"`{line}` in add_per_thread.cu")
    for line in GRID_STRIDE_LINES:
        expect(re.escape(line), source("add_blocks_per_sm.cu"), f"`{line}` in add_blocks_per_sm.cu")
    n, block, grid = 22, 4, 2
    per_grid, per, idle = per_thread_owner(n, block)
    gs = grid_stride_owner(n, block, grid)
    assert sorted(per) == list(range(n)) and sorted(gs) == list(range(n)), "an element missed or doubled"
    cell, left, top = 28, 0, 58
    width = left + (per_grid * block) * cell + 10
    height = 300
    svg = Svg(
        "index-map",
        width,
        height,
        "Which thread handles each element: one thread per element, and a grid-stride loop",
        f"Two rows of {n} element cells, toy blocks of {block} threads. One thread per element: {per_grid} blocks, "
        f"element i handled by thread i mod {block} of block i / {block}; the last block has {idle} threads past "
        f"the end, which the guard i < n stops. Grid-stride loop over a grid of {grid} blocks ({grid * block} "
        f"threads): element i handled by thread i mod {block * grid} of the grid on trip i / {block * grid}; "
        "neighbouring elements stay with neighbouring threads on every trip.",
    )
    svg.text(left, 14, f"toy sizes: n = {n} elements, blocks of {block} threads", size=12, weight="bold")

    def row(y, owner, title, formula, extra):
        svg.text(left, y - 24, title, size=12, weight="bold")
        svg.text(left, y - 8, formula, size=10.5, mono=True, opacity=0.9)
        for i in range(n):
            b, t, trip = owner[i]
            colour = BLOCK_COLOURS[b % len(BLOCK_COLOURS)]
            svg.rect(left + i * cell + 1, y, cell - 2, 22, fill=colour, fill_opacity=0.5, stroke="currentColor", stroke_width=0.6)
            svg.text(left + i * cell + cell / 2, y + 15, i, size=10, anchor="middle", mono=True)
            svg.text(left + i * cell + cell / 2, y + 36, f"b{b}", size=9, anchor="middle", mono=True, opacity=0.85)
            svg.text(left + i * cell + cell / 2, y + 47, f"t{t}", size=9, anchor="middle", mono=True, opacity=0.85)
            if extra:
                svg.text(left + i * cell + cell / 2, y + 58, f"#{trip}", size=9, anchor="middle", mono=True, opacity=0.85)
        return y

    y = row(top, per, f"one thread per element: grid = ceil_div(n, {block}) = {per_grid} blocks",
            "i = blockIdx.x * blockDim.x + threadIdx.x;  if (i < n) ...", False)
    for k in range(idle):
        x = left + (n + k) * cell
        svg.rect(x + 1, y, cell - 2, 22, fill="none", stroke="currentColor", stroke_width=0.6,
                 stroke_opacity=0.5, stroke_dasharray="2 2")
        b, t = divmod(n + k, block)
        svg.text(x + cell / 2, y + 36, f"b{b}", size=9, anchor="middle", mono=True, opacity=0.5)
        svg.text(x + cell / 2, y + 47, f"t{t}", size=9, anchor="middle", mono=True, opacity=0.5)
    svg.text(width - 10, y + 64, "past the end: idle", size=9, anchor="end", opacity=0.7)
    y2 = top + 130
    row(y2, gs, f"grid-stride loop: grid = {grid} blocks, {grid * block} threads",
        "for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)", True)
    stride = grid * block
    for trip in range(-(-n // stride)):
        x0 = left + trip * stride * cell
        x1 = left + min(n, (trip + 1) * stride) * cell
        svg.line(x0 + 2, y2 + 64, x1 - 2, y2 + 64, stroke="currentColor", stroke_width=0.8)
        svg.text((x0 + x1) / 2, y2 + 78, f"trip {trip}", size=9.5, anchor="middle", opacity=0.85)
    svg.text(left, height - 6, "b: block, t: thread within the block, #: the trip of the loop; evaluated from the kernels' index lines.", size=10, opacity=0.8)
    return svg


# ---------------------------------------------------------------- waves


def swept_blocks():
    src = source("add_blocks_per_sm.cu")
    values = expect(r"(?m)^BLOCKS\s*=\s*\[([0-9,\s]+)\]", src, "the BLOCKS sweep in add_blocks_per_sm.cu").group(1)
    return [int(v) for v in values.split(",")]


def tile_sizes():
    src = source("fma_tiles.cu")
    values = expect(r"(?m)^sizes\s*=\s*\[([0-9,\s]+)\]", src, "the sizes of fma_tiles.cu").group(1)
    return [int(v) for v in values.split(",")]


def waves_of(blocks, slots):
    """Blocks in each wave, filling `slots` at a time."""
    full, rest = divmod(blocks, slots)
    return [slots] * full + ([rest] if rest else [])


def figure_waves():
    sms = sm_count()
    _, resident = blocks_per_sm("add_blocks_per_sm.cu", "add_grid_stride")
    assert header_grid(source("add_blocks_per_sm.cu"), "add_blocks_per_sm.cu") == "sms * BLOCKS"
    tile_block, tile_resident = blocks_per_sm("fma_tiles.cu", "fma_tiles")
    for file, kernel in (("fma_grid_stride.cu", "fma_grid_stride"), ("fma_persistent.cu", "fma_persistent")):
        blocks_per_sm(file, kernel)
    tile_grid = header_grid(source("fma_tiles.cu"), "fma_tiles.cu")
    gs_grid = header_grid(source("fma_grid_stride.cu"), "fma_grid_stride.cu")
    slots = sms * tile_resident
    width, left = 700, 0
    sweep = swept_blocks()
    sizes = tile_sizes()
    slot_w, slot_h, wave_gap = 7, 14, 6
    row_h = 22
    top_a = 50
    top_b = top_a + len(sweep) * row_h + 62
    height = top_b + len(sizes) * 40 + 40
    desc_a = "; ".join(
        f"BLOCKS {k}: " + " + ".join(str(w) for w in waves_of(k, resident)) for k in sweep
    )
    desc_b = []
    for n in sizes:
        grid = eval_grid(tile_grid, n, sms)
        waves = waves_of(grid, slots)
        desc_b.append(f"n = {n}: {grid} blocks, waves of " + " + ".join(str(w) for w in waves))
    svg = Svg(
        "waves",
        width,
        height,
        "How the chapter's launches fall into waves of resident blocks",
        f"Top: for each value of BLOCKS of add_blocks_per_sm, the blocks one SM receives (the grid is "
        f"{sms} SMs times BLOCKS), drawn in waves of {resident} slots, the blocks of 256 threads an SM holds at "
        f"once: {desc_a}. Bottom: for each size of fma_tiles, the grid's blocks over the {slots} block slots of "
        f"the GPU ({sms} SMs times {tile_resident}), wave by wave: " + "; ".join(desc_b) + ".",
    )
    svg.text(left, 14, f"add_blocks_per_sm: the blocks of one SM, in waves of {resident} slots", size=12, weight="bold")
    svg.text(left, 30, f"(grid = sms * BLOCKS: BLOCKS blocks of 256 threads for each SM, if they spread evenly; {resident} fit at once)", size=10.5, opacity=0.85)
    for r, k in enumerate(sweep):
        y = top_a + r * row_h
        svg.text(left + 74, y + 11, f"BLOCKS = {k}", size=10.5, anchor="end", mono=True)
        x = left + 84
        waves = waves_of(k, resident)
        for w, filled in enumerate(waves):
            if x + resident * slot_w > width - 60:
                svg.text(x, y + 11, f"… {len(waves)} waves in all", size=10, opacity=0.85)
                break
            svg.open(fill="none", stroke="currentColor", stroke_width=0.5, stroke_opacity=0.5)
            svg.rect(x, y, resident * slot_w, slot_h)
            svg.close()
            colour = BLUE if filled == resident else ORANGE
            svg.open(fill=colour, fill_opacity=0.55, stroke="currentColor", stroke_width=0.4)
            for s in range(filled):
                svg.rect(x + s * slot_w + 0.5, y + 0.5, slot_w - 1, slot_h - 1)
            svg.close()
            x += resident * slot_w + wave_gap
        last = waves[-1]
        if len(waves) == 1 and last < resident:
            note = f"one wave, {last} of {resident} slots"
        elif last == resident:
            note = f"{len(waves)} whole wave{'s' if len(waves) > 1 else ''}"
        else:
            note = f"last wave {last} of {resident} slots"
        svg.text(width - 2, y + 11, note, size=10, anchor="end", opacity=0.85)
    svg.text(left, top_b - 34, f"fma_tiles: the grid's blocks over the GPU's {slots} block slots, one bar a wave", size=12, weight="bold")
    svg.text(left, top_b - 18, f"(grid = {tile_grid}; {sms} SMs x {tile_resident} blocks of {tile_block}; fma_grid_stride and fma_persistent launch one wave, {gs_grid})", size=10.5, opacity=0.85)
    bar_w = 128
    for r, n in enumerate(sizes):
        y = top_b + r * 40
        grid = eval_grid(tile_grid, n, sms)
        waves = waves_of(grid, slots)
        gs_threads = eval_grid(gs_grid, n, sms) * tile_block
        per, extra = divmod(n, gs_threads)
        svg.text(left, y + 11, f"n = {n:,}", size=10.5, mono=True)
        svg.text(left, y + 25, f"{grid:,} blocks", size=9.5, mono=True, opacity=0.85)
        x = left + 130
        for w, filled in enumerate(waves):
            svg.open(fill="none", stroke="currentColor", stroke_width=0.6, stroke_opacity=0.6)
            svg.rect(x, y, bar_w, slot_h)
            svg.close()
            colour = BLUE if filled == slots else ORANGE
            svg.rect(x, y, max(bar_w * filled / slots, 1.5), slot_h, fill=colour, fill_opacity=0.6)
            svg.text(x + bar_w / 2, y + 26, f"{filled:,} of {slots:,}", size=9.5, anchor="middle", opacity=0.85)
            x += bar_w + wave_gap
        more = f"and {extra:,} threads one more" if extra else "every thread alike"
        svg.text(width - 2, y + 11, f"grid-stride: {per} elements a thread,", size=9.5, anchor="end", opacity=0.85)
        svg.text(width - 2, y + 24, more, size=9.5, anchor="end", opacity=0.85)
    svg.text(left, height - 6, "Counted from the launch plans and the residency, not measured: the panels under each example hold the times.", size=10, opacity=0.8)
    return svg


FIGURES = {"index_map.svg": figure_index_map, "waves.svg": figure_waves}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/grid_stride_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
