"""Draws the occupancy chapter's figure as SVG, into src/images/occupancy/.

For each copy the chapter measures, the figure shows the 64 warp slots of
one SM and which of them the example's blocks fill, with the resource that
stops one more block from fitting. Everything is computed here from the
examples themselves: the block size, grid and dynamic shared memory out of
each kernel file's header (kernels/occupancy/*.cu), LOADS and
__launch_bounds__ out of its #defines, and the registers a thread needs out
of the committed SASS listing (results/sass/occupancy/*.json, written by
scripts/sass), with the per-SM limits of compute capability 9.0 below. It
draws what the hardware's rules allow, not a measurement: the chapter
compares it with the warps Nsight Compute counted.

Standard library only. Usage, from the repository root:

    python3 bench/figures/occupancy_figures.py          # write the SVG
    python3 bench/figures/occupancy_figures.py --check  # exit 1 if stale
"""

import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reductions_figures import BLUE, GREEN, ORANGE, PURPLE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "occupancy"
SASS = ROOT / "results" / "sass" / "occupancy"
OUT_DIR = ROOT / "src" / "images" / "occupancy"
WARP = 32

# The per-SM limits of compute capability 9.0 (CUDA C++ Programming Guide,
# "Technical Specifications per Compute Capability"): resident warps and
# blocks, 32-bit registers (allocated to a warp in units of 256), shared
# memory per SM, and the 1 KiB the system reserves in every block.
MAX_WARPS = 64
MAX_BLOCKS = 32
REGISTERS = 65536
REGISTER_UNIT = 256
SHARED_PER_SM = 228 * 1024
RESERVED_PER_BLOCK = 1024

# (kernel file, label): the examples the figure draws, in the page's order.
EXAMPLES = [
    ("full.cu", "full"),
    ("pad_8.cu", "pad_8"),
    ("pad_4.cu", "pad_4"),
    ("pad_2.cu", "pad_2"),
    ("pad_1.cu", "pad_1"),
    ("warp_blocks.cu", "warp_blocks"),
    ("registers.cu", "registers"),
    ("registers_bounded.cu", "registers_bounded"),
    ("pad_2_loads8.cu", "pad_2_loads8"),
    ("pad_1_loads16.cu", "pad_1_loads16"),
]

BLOCK_COLOURS = [BLUE, ORANGE, GREEN, PURPLE]


def header_value(src, key, file, default=None):
    match = re.search(rf'(?m)^{key}\s*=\s*"?([^"\n]+)"?\s*$', src)
    if match:
        return match.group(1).strip()
    if default is None:
        sys.exit(f"occupancy_figures.py: `{key} = ...` not found in {file}; update the mirror")
    return default


def define(src, name, default):
    match = re.search(rf"(?m)^#define {name} (.+)$", src)
    return match.group(1).strip() if match else default


class Example:
    """One copy's launch and what an SM holds of it."""

    def __init__(self, file, label):
        src = (KERNELS / file).read_text()
        expect(r'#include "copy.cuh"', src, f"the include of copy.cuh in {file}")
        self.file, self.label = file, label
        self.block = int(header_value(src, "block", file))
        self.grid = header_value(src, "grid", file)
        self.shared = int(header_value(src, "shared", file, "0"))
        self.loads = int(define(src, "LOADS", "1"))
        self.bounds = define(src, "BOUNDS", "")
        listing = SASS / (file[:-3] + ".json")
        if not listing.exists():
            sys.exit(f"occupancy_figures.py: {listing.relative_to(ROOT)} is missing; run scripts/sass kernels/occupancy")
        kernel = json.loads(listing.read_text())["kernels"][0]
        self.registers = kernel["registers"]
        self.stack = kernel.get("stack") or 0
        self.warps_per_block = -(-self.block // WARP)
        per_warp = -(-self.registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
        limits = {
            "warp slots": MAX_WARPS // self.warps_per_block,
            "block slots": MAX_BLOCKS,
            "registers": (REGISTERS // per_warp) // self.warps_per_block,
        }
        if self.shared:
            limits["shared memory"] = SHARED_PER_SM // (self.shared + RESERVED_PER_BLOCK)
        self.blocks = min(limits.values())
        self.limit = min(limits, key=lambda k: (limits[k], k != "warp slots"))
        self.limits = limits
        self.warps = self.blocks * self.warps_per_block
        self.in_flight = self.warps * WARP * 16 * self.loads

    def limit_text(self):
        b = self.blocks
        if self.limit == "shared memory":
            return f"shared memory: {b} × {(self.shared + RESERVED_PER_BLOCK) // 1024} KiB of {SHARED_PER_SM // 1024} KiB"
        if self.limit == "registers":
            per_warp = -(-self.registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
            return f"registers: {self.registers} a thread, {b} × {self.warps_per_block} warps × {per_warp} of {REGISTERS}"
        if self.limit == "block slots":
            return f"block slots: {b} blocks of {self.block} threads"
        return f"threads: {b} × {self.block} = {b * self.block}"


def kib(n):
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n / 1024:.1f} KiB"


def figure_resident_warps():
    examples = [Example(f, label) for f, label in EXAMPLES]
    left, label_w, cell_w, cell_h, row_h = 8, 130, 7, 14, 34
    grid_x = left + label_w
    grid_w = MAX_WARPS * cell_w
    text_x = grid_x + grid_w + 12
    width = text_x + 300
    top = 44
    height = top + len(examples) * row_h + 8
    desc = "; ".join(
        f"{e.label}: {e.blocks} block{'s' if e.blocks != 1 else ''} of {e.warps_per_block} "
        f"warp{'s' if e.warps_per_block != 1 else ''}, {e.warps} of 64 warp slots, limited by {e.limit}, "
        f"{kib(e.in_flight)} of loads in flight"
        for e in examples
    )
    svg = Svg(
        "resident-warps",
        width,
        height,
        "How many warps one SM holds for each copy of the occupancy chapter, and what stops one more block",
        "One row per example, each with the 64 warp slots of an SM; filled slots are the warps of resident "
        "blocks, one colour per block, as the per-SM limits of compute capability 9.0 allow for the example's "
        "block size, dynamic shared memory and registers. " + desc + ".",
    )
    svg.text(left, 14, "warp slots of one SM filled by the example's resident blocks (the rules, not a measurement)", weight="bold")
    svg.text(grid_x, 34, "0", size=9, opacity=0.7, mono=True)
    svg.text(grid_x + 32 * cell_w, 34, "32", size=9, anchor="middle", opacity=0.7, mono=True)
    svg.text(grid_x + grid_w, 34, "64", size=9, anchor="end", opacity=0.7, mono=True)
    svg.text(text_x, 34, "what stops one more block · bytes of loads in flight", size=10, opacity=0.8)
    for r, e in enumerate(examples):
        y = top + r * row_h
        svg.text(left, y + 11, e.label, size=11, mono=True)
        svg.text(left, y + 24, f"{e.block} threads, {e.registers} regs", size=9, opacity=0.75)
        svg.open(fill="none", stroke="currentColor", stroke_width=0.4, stroke_opacity=0.35, stroke_dasharray="1.5 1.5")
        for w in range(e.warps, MAX_WARPS):
            svg.rect(grid_x + w * cell_w + 0.5, y + 2, cell_w - 1, cell_h)
        svg.close()
        for b in range(e.blocks):
            colour = BLOCK_COLOURS[b % len(BLOCK_COLOURS)]
            svg.open(fill=colour, fill_opacity=0.6, stroke="currentColor", stroke_width=0.4)
            for k in range(e.warps_per_block):
                w = b * e.warps_per_block + k
                svg.rect(grid_x + w * cell_w + 0.5, y + 2, cell_w - 1, cell_h)
            svg.close()
        svg.text(text_x, y + 11, e.limit_text(), size=10)
        extra = f" · {e.stack} B of stack a thread (spills)" if e.stack else ""
        svg.text(text_x, y + 24, f"{e.warps} warps × {e.loads} float4 = {kib(e.in_flight)}{extra}", size=9, opacity=0.75)
    return svg


FIGURES = {"resident_warps.svg": figure_resident_warps}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/occupancy_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
