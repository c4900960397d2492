"""Draws the figures of the coalescing and transpose chapters as SVG, into
src/images/coalescing/ and src/images/transpose/.

Each picture is mirrored from the kernels it explains, with the index
arithmetic checked against their files:

- coalescing/warp_sectors.svg: the 32-byte sectors that the 32 lanes of the
  first warp touch with one load, for the strided copy of
  kernels/coalescing/strided.cuh at STRIDE = 1, 2 and 32 (lane t reads
  element (t % rows) * STRIDE + t / rows, which for the first warp of a
  large array is t * STRIDE) and for the offset copy of offset.cu (lane t
  reads element t + 1);
- transpose/tile_banks.svg: the shared-memory bank of every element of the
  32 x 32 tile of tile.cu (rows 32 floats long), tile_padded.cu (33 floats)
  and tile_swizzled.cu (element (r, c) stored at column c ^ r), with the
  column a warp reads when it writes a row of y outlined.

A kernel edit that the mirror no longer matches stops the script with the
line it expected. Drawing helpers (Svg, colours, write_figures) are those
of reductions_figures.py, so the figures look alike and take the page's
text colour in every mdBook theme.

Standard library only. Usage, from the repository root:

    python3 bench/figures/memory_figures.py          # write the SVGs
    python3 bench/figures/memory_figures.py --check  # exit 1 if stale
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, ORANGE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels"
WARP = 32
SECTOR_BYTES = 32
FLOAT_BYTES = 4
BANKS = 32


# ---------------------------------------------------------------- mirrors


def source(path):
    return (KERNELS / path).read_text()


def strided_element(t, stride, n):
    """The element lane t of the strided copy reads (strided.cuh)."""
    rows = (n + stride - 1) // stride
    return (t % rows) * stride + t // rows


def check_strided():
    s = source("coalescing/strided.cuh")
    expect(r"unsigned int rows = \(n \+ STRIDE - 1\) / STRIDE;", s, "rows of strided.cuh")
    expect(r"unsigned int i = \(t % rows\) \* STRIDE \+ t / rows;", s, "the element index of strided.cuh")
    expect(r"y\[i\] = x\[i\];", s, "the copy of strided.cuh")
    for stride in (2, 32):
        expect(rf"#define STRIDE {stride}\b", source(f"coalescing/stride_{stride}.cu"), f"STRIDE of stride_{stride}.cu")
    copy = source("coalescing/copy.cu")
    expect(r"y\[i\] = x\[i\];", copy, "the copy of copy.cu")
    off = source("coalescing/offset.cu")
    expect(r"x\[i \+ 1\]", off, "the read x[i + 1] of offset.cu")


def sectors_of(elements):
    """The 32-byte sectors (by number) the float elements lie in."""
    return sorted({e * FLOAT_BYTES // SECTOR_BYTES for e in elements})


def tile_layout(name):
    """(row length in floats, slot function) of a transpose tile kernel, read
    from its `__shared__` declaration and its SLOT macro."""
    s = source(f"transpose/{name}")
    expect(r"#define TILE 32\b", s, f"TILE of {name}")
    decl = expect(r"__shared__ float tile\[TILE\]\[(TILE(?: \+ 1)?)\];", s, f"the tile of {name}").group(1)
    width = 33 if decl == "TILE + 1" else 32
    slot = expect(r"#define SLOT\(r, c\) (\(c\)|\(\(c\) \^ \(r\)\))", s, f"SLOT of {name}").group(1)
    expect(r"tile\[tx\]\[SLOT\(tx, ty\)\]", s, f"the column read of {name}")
    if slot == "(c)":
        return width, lambda r, c: c
    return width, lambda r, c: c ^ r


def bank(width, slot, r, c):
    """The bank of element (r, c) of the tile: word r * width + slot(r, c)."""
    return (r * width + slot(r, c)) % BANKS


# ---------------------------------------------------------------- figures


def figure_warp_sectors():
    check_strided()
    n = 1 << 24  # any array much longer than a warp: the first warp's lanes
    cases = [
        ("copy.cu (stride 1): lane t reads element t", [strided_element(t, 1, n) for t in range(WARP)]),
        ("offset.cu: lane t reads element t + 1", [t + 1 for t in range(WARP)]),
        ("stride_2.cu: lane t reads element 2t", [strided_element(t, 2, n) for t in range(WARP)]),
        ("stride_32.cu: lane t reads element 32t", [strided_element(t, 32, n) for t in range(WARP)]),
    ]
    left, width = 12, 720
    svg = Svg(
        "warp-sectors",
        left * 2 + width,
        0,
        "The sectors one warp's load touches",
        "For each access pattern, the 32-byte sectors of memory from the first to the last one the 32 lanes "
        "of a warp read, each sector drawn as eight 4-byte floats; filled floats are the ones the lanes read, "
        "outlined sectors the ones the load must fetch.",
    )
    y = 8
    for label, elements in cases:
        touched = sectors_of(elements)
        first, last = touched[0], touched[-1]
        span = last - first + 1
        cell = min(40.0, width / span)
        used = set(elements)
        fetched = len(touched) * SECTOR_BYTES
        svg.text(left, y + 12, label, size=12, weight="bold")
        svg.text(
            left + width,
            y + 12,
            f"{len(touched)} sectors, {fetched} bytes fetched for {WARP * FLOAT_BYTES} used",
            size=11,
            anchor="end",
        )
        y += 18
        for k in range(span):
            sector = first + k
            x = left + k * cell
            hit = sector in touched
            svg.rect(
                x,
                y,
                cell,
                18,
                fill=BLUE if hit else "none",
                fill_opacity=0.18 if hit else None,
                stroke="currentColor",
                stroke_width=0.9 if hit else 0.4,
                stroke_opacity=None if hit else 0.35,
            )
            floats = SECTOR_BYTES // FLOAT_BYTES
            if cell >= 16:
                for f in range(floats):
                    e = sector * floats + f
                    if e in used:
                        svg.rect(x + f * cell / floats + 0.5, y + 3, cell / floats - 1, 12, fill=ORANGE, fill_opacity=0.85)
            elif hit:
                svg.rect(x + 0.5, y + 3, max(cell / floats, 0.8), 12, fill=ORANGE, fill_opacity=0.85)
        y += 18
        svg.text(left, y + 12, f"sectors {first} to {last} of memory", size=10, opacity=0.7)
        y += 24
    svg.height = y
    return svg


def figure_tile_banks():
    panels = [
        ("tile.cu: tile[32][32]", *tile_layout("tile.cu")),
        ("tile_padded.cu: tile[32][33]", *tile_layout("tile_padded.cu")),
        ("tile_swizzled.cu: tile[r][c ^ r]", *tile_layout("tile_swizzled.cu")),
    ]
    cell, gap, top, left = 7.0, 26.0, 34.0, 10.0
    side = 32 * cell
    svg = Svg(
        "tile-banks",
        left * 2 + 3 * side + 2 * gap,
        top + side + 58,
        "The shared-memory bank of every element of the transpose tile",
        "Three 32 by 32 tiles, element (r, c) at row r and column c, each cell shaded by the bank that holds "
        "it. Column 0 is outlined: a warp reads one column when it writes a row of y. In the unpadded tile the "
        "whole column lies in bank 0; padded to 33 floats a row, or stored at column c xor r, its 32 elements "
        "lie in 32 different banks.",
    )
    for p, (label, width, slot) in enumerate(panels):
        x0 = left + p * (side + gap)
        svg.text(x0, 14, label, size=11.5, weight="bold", mono=True)
        column = [bank(width, slot, r, 0) for r in range(32)]
        distinct = len(set(column))
        svg.text(x0, 28, f"column 0 in {distinct} bank{'s' if distinct > 1 else ''}", size=10.5)
        for r in range(32):
            for c in range(32):
                b = bank(width, slot, r, c)
                hue = round(b * 360 / BANKS)
                svg.rect(x0 + c * cell, top + r * cell, cell, cell, fill=f"hsl({hue}, 70%, 55%)", fill_opacity=0.75)
        svg.rect(x0, top, cell, side, fill="none", stroke="currentColor", stroke_width=1.6)
        # The banks of column 0, as numbers under the panel: the first eight.
        firsts = ", ".join(str(b) for b in column[:8])
        svg.text(x0, top + side + 16, f"banks of rows 0-7: {firsts}, ...", size=10)
    # Legend: bank 0 to 31 as the shades.
    y = top + side + 30
    svg.text(left, y + 10, "bank", size=10)
    for b in range(BANKS):
        hue = round(b * 360 / BANKS)
        svg.rect(left + 34 + b * 10, y, 10, 12, fill=f"hsl({hue}, 70%, 55%)", fill_opacity=0.75)
    svg.text(left + 34, y + 24, "0", size=9)
    svg.text(left + 34 + 31 * 10 + 10, y + 24, "31", size=9, anchor="end")
    return svg


COALESCING = {"warp_sectors.svg": figure_warp_sectors}
TRANSPOSE = {"tile_banks.svg": figure_tile_banks}


def main(argv):
    script = "bench/figures/memory_figures.py"
    a = write_figures(COALESCING, ROOT / "src" / "images" / "coalescing", script, argv)
    b = write_figures(TRANSPOSE, ROOT / "src" / "images" / "transpose", script, argv)
    return a or b


if __name__ == "__main__":
    sys.exit(main(sys.argv))
