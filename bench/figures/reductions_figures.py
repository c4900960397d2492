"""Draws the reductions chapter's figures as SVG, into src/images/reductions/.

Every number on a figure is computed here from the kernels' own index
arithmetic, mirrored line for line from kernels/reductions/*.cu, with the
constants (block sizes, LOADS_IN_FLIGHT, the shuffle offsets, the grid
formula) read out of those files and the SM count read from the results
store. A kernel edit that changes what a figure shows changes the figure on
the next run; an edit the mirror no longer matches stops the script with the
line it expected.

Standard library only. Usage, from the repository root:

    python3 bench/figures/reductions_figures.py          # write the SVGs
    python3 bench/figures/reductions_figures.py --check  # exit 1 if stale

The SVGs draw lines and text in `currentColor` and fill with translucent
accents, so that inlined into a page (the chapter includes them with
`{{#include}}`) they take the page's text colour in every mdBook theme. Opened
on their own they draw in the viewer's default colour, black.
"""

import json
import pathlib
import re
import sys
from xml.sax.saxutils import escape

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "reductions"
OUT_DIR = ROOT / "src" / "images" / "reductions"
WARP = 32

# Accents at a lightness that reads on white and on the dark themes' near
# black; fills use them translucent, lines and text stay currentColor.
BLUE = "#3d8bfd"
ORANGE = "#f0883e"
GREEN = "#2da44e"
PURPLE = "#a371f7"
LOAD_COLOURS = [BLUE, ORANGE, GREEN, PURPLE]
FONT = "'Open Sans', 'Helvetica Neue', Arial, sans-serif"
MONO = "'Source Code Pro', Consolas, 'Ubuntu Mono', monospace"


# ---------------------------------------------------------------- sources


def kernel_source(name):
    return (KERNELS / name).read_text()


def expect(pattern, text, what):
    """The first match of `pattern` in `text`; stops the script naming `what`
    when the kernel no longer contains it, since the mirror below would then
    draw something the kernel does not do."""
    match = re.search(pattern, text)
    if not match:
        sys.exit(f"reductions_figures.py: {what} not found (pattern {pattern!r}); update the mirror")
    return match


def header_int(source, key, file):
    return int(expect(rf"(?m)^{key}\s*=\s*(\d+)\s*$", source, f"`{key} = N` in {file}").group(1))


def header_grid(source, file):
    return expect(r'(?m)^grid\s*=\s*"([^"]+)"', source, f"grid formula in {file}").group(1)


def eval_grid(formula, n, sms):
    """Evaluates a launch header's grid formula with the runner's functions."""
    names = {
        "n": n,
        "sms": sms,
        "min": min,
        "max": max,
        "ceil_div": lambda a, b: -(-a // b),
        "pow2_floor": lambda a: 1 << (a.bit_length() - 1),
    }
    return eval(formula, {"__builtins__": {}}, names)  # noqa: S307 (a committed header)


def store_sm_count():
    store = json.loads((ROOT / "results" / "reductions" / "fast_reduce.json").read_text())
    return store["gpu"]["sm_count"], store["gpu"]["name"], store


# ---------------------------------------------------------------- mirrors


FOLD_LINES = {
    "interleaved_tree.cu": [
        "for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {",
        "if (tid % (2 * stride) == 0) {",
        "s[tid] += s[tid + stride];",
    ],
    "stride_tree.cu": [
        "for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {",
        "if (tid < stride) {",
        "s[tid] += s[tid + stride];",
    ],
}


def check_fold_sources():
    """Stops the script when a tree kernel's fold no longer reads as the
    mirrors below assume."""
    for file, lines in FOLD_LINES.items():
        src = kernel_source(file)
        for line in lines:
            expect(re.escape(line), src, f"`{line}` in {file}")


def interleaved_rounds(block):
    """interleaved_tree.cu's fold: (stride, active tids) per round."""
    rounds = []
    stride = 1
    while stride < block:
        rounds.append((stride, [tid for tid in range(block) if tid % (2 * stride) == 0]))
        stride *= 2
    return rounds


def stride_rounds(block):
    """stride_tree.cu's fold: (stride, active tids) per round."""
    rounds = []
    stride = block // 2
    while stride > 0:
        rounds.append((stride, [tid for tid in range(block) if tid < stride]))
        stride //= 2
    return rounds


def fold_is_sum(rounds, block):
    """Runs a fold on distinct powers of two; True when s[0] ends as the sum
    of all of them and every read was of a slot inside the block."""
    s = [1 << tid for tid in range(block)]
    for stride, active in rounds:
        for tid in active:
            assert tid + stride < block
            s[tid] += s[tid + stride]
    return s[0] == (1 << block) - 1


def lanes_per_warp(active, block):
    counts = [0] * (block // WARP)
    for tid in active:
        counts[tid // WARP] += 1
    return counts


def shuffle_rounds(first_offset):
    """warp_sum in fast_reduce.cu: per offset, the bit set of original lanes
    each lane holds after `v += __shfl_down_sync(full, v, offset)`. A lane
    whose source is past lane 31 gets its own value back."""
    held = [1 << lane for lane in range(WARP)]
    rounds = []
    offset = first_offset
    while offset > 0:
        before = held
        held = [before[lane] + (before[lane + offset] if lane + offset < WARP else before[lane]) for lane in range(WARP)]
        rounds.append((offset, held))
        offset //= 2
    return rounds


class FastReduce:
    """reduce_fast's index arithmetic for one input size."""

    def __init__(self, n, grid, block, loads_in_flight):
        self.n, self.grid, self.block, self.lif = n, grid, block, loads_in_flight
        self.n4 = n // 4
        self.tile = WARP * loads_in_flight
        self.warps = grid * block // WARP
        self.tiles = self.n4 // self.tile
        self.stride = grid * block

    def trips(self, warp):
        """Main-loop trips of a warp: t = warp; t < tiles; t += warps."""
        return len(range(warp, self.tiles, self.warps))

    def main_float4s(self, block_idx, thread):
        lane = thread % WARP
        warp = (block_idx * self.block + thread) // WARP
        for t in range(warp, self.tiles, self.warps):
            base = t * self.tile + lane
            for k in range(self.lif):
                yield base + WARP * k

    def rest_float4s(self, block_idx, thread):
        start = self.tiles * self.tile + block_idx * self.block + thread
        return range(start, self.n4, self.stride)

    def tail_float(self, block_idx, thread):
        first = block_idx * self.block + thread
        return 4 * self.n4 + first if first < self.n - 4 * self.n4 else None

    def covers_every_element_once(self):
        """Enumerates every read; for the small sizes the figure quotes."""
        seen = bytearray(self.n)
        for b in range(self.grid):
            for t in range(self.block):
                for i in list(self.main_float4s(b, t)) + list(self.rest_float4s(b, t)):
                    for e in range(4 * i, 4 * i + 4):
                        seen[e] += 1
                tail = self.tail_float(b, t)
                if tail is not None:
                    seen[tail] += 1
        return all(c == 1 for c in seen)

    def readers(self):
        """(threads that read a float4 in the rest loop, threads that read a
        tail float), as sorted global thread indices."""
        rest = [g for g in range(self.stride) if len(self.rest_float4s(g // self.block, g % self.block))]
        tail = [g for g in range(self.stride) if self.tail_float(g // self.block, g % self.block) is not None]
        return rest, tail


# ---------------------------------------------------------------- drawing


def num(v):
    """A coordinate with at most one decimal and no trailing zero."""
    text = f"{v:.1f}"
    return text[:-2] if text.endswith(".0") else text


def paint(**attrs):
    """SVG attributes from keyword arguments; None leaves one out, and an
    underscore in a name becomes a hyphen (stroke_width -> stroke-width)."""
    return "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items() if v is not None)


class Svg:
    """An SVG document built as lines of text, with no blank line, so that
    markdown passes it through as one HTML block when a page includes it.
    Dense sets of shapes go in a group that carries their paint once."""

    def __init__(self, name, width, height, title, desc):
        self.name, self.width, self.height = name, width, height
        self.title, self.desc = title, desc
        self.items = []
        self.markers = {}

    def marker(self, colour):
        """url() of an arrowhead filled with `colour` (currentColor or an accent)."""
        if colour not in self.markers:
            self.markers[colour] = f"{self.name}-arrow{len(self.markers)}"
        return f"url(#{self.markers[colour]})"

    def open(self, **attrs):
        self.items.append(f"<g{paint(**attrs)}>")

    def close(self):
        self.items.append("</g>")

    def rect(self, x, y, w, h, **attrs):
        geometry = f'x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}"'
        self.items.append(f"<rect {geometry}{paint(**attrs)}/>")

    def line(self, x1, y1, x2, y2, **attrs):
        geometry = f'x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}"'
        self.items.append(f"<line {geometry}{paint(**attrs)}/>")

    def text(self, x, y, s, size=12, anchor=None, weight=None, mono=False, opacity=None):
        attrs = paint(
            font_size=size,
            text_anchor=anchor,
            font_weight=weight,
            font_family=MONO if mono else None,
            fill_opacity=opacity,
        )
        self.items.append(f'<text x="{num(x)}" y="{num(y)}"{attrs}>{escape(str(s))}</text>')

    def render(self):
        tid, did = f"{self.name}-title", f"{self.name}-desc"
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {num(self.width)} {num(self.height)}" '
            f'width="{num(self.width)}" height="{num(self.height)}" role="img" aria-labelledby="{tid} {did}" '
            f'class="cm-figure" style="max-width:100%;height:auto" fill="currentColor" '
            f'font-family="{FONT}" font-size="12">'
        )
        lines = [head, f'<title id="{tid}">{escape(self.title)}</title>', f'<desc id="{did}">{escape(self.desc)}</desc>']
        if self.markers:
            lines.append("<defs>")
            for colour, mid in self.markers.items():
                lines.append(
                    f'<marker id="{mid}" viewBox="0 0 6 6" refX="5.5" refY="3" markerWidth="5" markerHeight="5" '
                    f'orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="{colour}"/></marker>'
                )
            lines.append("</defs>")
        lines += self.items
        lines.append("</svg>")
        # One line: a chapter pulls the figure in with {{#include}} before
        # the book's preprocessor reads it, and a one-line figure keeps
        # every later line of the chapter at its own line number, so that
        # errors and the status page name the chapter's real lines.
        # No newline at the end either: the include's own line ends it.
        text = "".join(lines)
        assert "\n" not in text, "a figure's text holds a newline"
        return text


# Paint shared by the figures: a cell that holds or receives a value, a slot
# or lane that does nothing, an arrow carrying a value, a thread's own value.
WORK = dict(fill=BLUE, fill_opacity=0.55, stroke="currentColor", stroke_width=0.6)
IDLE = dict(fill="none", stroke="currentColor", stroke_width=0.5, stroke_opacity=0.35, stroke_dasharray="1.5 1.5")
OWN = dict(stroke="currentColor", stroke_width=0.8, stroke_opacity=0.4)


def lane_ranges(ids):
    """'0–15' style text for sorted integers, ranges joined by commas."""
    if not ids:
        return "none"
    parts, start, prev = [], ids[0], ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start}" if start == prev else f"{start}–{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)


def power_text(n):
    e = n.bit_length() - 1
    return f"2^{e}" if n == 1 << e else f"{n:,}"


# ---------------------------------------------------------------- figure 1


def warps_with_work(active, block):
    return sum(1 for c in lanes_per_warp(active, block) if c)


def draw_cells(svg, xs_work, xs_idle, y, w, h):
    """One row of cells: those in xs_work filled, those in xs_idle dashed."""
    svg.open(**WORK)
    for x in xs_work:
        svg.rect(x, y, w, h)
    svg.close()
    if xs_idle:
        svg.open(**IDLE)
        for x in xs_idle:
            svg.rect(x, y, w, h)
        svg.close()


def draw_arrows(svg, pairs, y_from, y_to, own=True, width=0.9):
    """Arrows from x_from (row above) to x_to (row below), with a thin line
    from each target's own slot, since `s[t] += s[t + s]` adds to it."""
    if own:
        svg.open(**OWN)
        for _, x_to in pairs:
            svg.line(x_to, y_from, x_to, y_to)
        svg.close()
    svg.open(stroke=BLUE, stroke_width=width, marker_end=svg.marker(BLUE))
    for x_from, x_to in pairs:
        svg.line(x_from, y_from + 0.5, x_to, y_to - 0.5)
    svg.close()


def figure_tree_rounds():
    check_fold_sources()
    block = 2 * WARP  # drawn size: two warps; the kernels' 256 threads are eight
    forms = [
        ("Interleaved: thread t works when t % (2s) == 0", interleaved_rounds(block)),
        ("Stride: thread t works when t < s", stride_rounds(block)),
    ]
    for _, rounds in forms:
        assert fold_is_sum(rounds, block)
    totals = [sum(warps_with_work(a, block) for _, a in rounds) for _, rounds in forms]

    left, pitch, cell_w, cell_h, row_h = 58, 8.5, 6.5, 10, 30
    right = left + block * pitch
    top = 28
    panel_h = 44 + (1 + len(forms[0][1])) * row_h
    svg = Svg(
        "tree-rounds",
        700,
        top + len(forms) * panel_h,
        f"Tree rounds of the interleaved and stride folds over a {block}-thread block",
        f"Slots 0 to {block - 1} of shared memory, one row per round. Filled slots are written in that round; "
        f"each arrow carries slot t + s into slot t. The dashed line is the boundary between warp 0 and warp 1. "
        f"In the interleaved form both warps have working threads in every round but the last "
        f"({totals[0]} warp-rounds with work); in the stride form warp 1 has none from the first round on "
        f"({totals[1]} warp-rounds with work).",
    )
    svg.text(0, 14, f"A {block}-thread block (two warps) folded both ways; the kernels' blocks of 256 repeat it over eight warps")
    y0 = top
    for (title, rounds), total in zip(forms, totals):
        svg.text(0, y0 + 14, title, weight="bold")
        svg.text(7.3 * len(title) + 12, y0 + 14, f"{total} warp-rounds with work", size=11, opacity=0.85)
        for w in range(block // WARP):
            svg.text(left + (w * WARP + WARP / 2) * pitch, y0 + 34, f"warp {w}", size=11, anchor="middle", opacity=0.8)
        svg.text(right + 8, y0 + 22, "working", size=10, opacity=0.8)
        svg.text(right + 8, y0 + 34, "threads · warps", size=10, opacity=0.8)
        rows_top = y0 + 44
        boundary = left + WARP * pitch - (pitch - cell_w) / 2
        svg.line(boundary, y0 + 24, boundary, rows_top + len(rounds) * row_h + cell_h + 4, stroke="currentColor", stroke_opacity=0.7, stroke_dasharray="4 3")
        for r in range(len(rounds) + 1):
            y = rows_top + r * row_h
            if r == 0:
                svg.text(left - 6, y + 9, "load", size=11, anchor="end")
                written = list(range(block))
            else:
                stride, written = rounds[r - 1]
                svg.text(left - 6, y + 9, f"s={stride}", size=11, anchor="end", mono=True)
                centre = [left + t * pitch + cell_w / 2 for t in range(2 * block)]
                dense = len(written) >= WARP // 2
                pairs = [(centre[t + stride], centre[t]) for t in written]
                draw_arrows(svg, pairs, y - row_h + cell_h, y, width=0.6 if dense else 0.9)
                svg.text(right + 8, y + 9, f"{len(written)} · {warps_with_work(written, block)}", size=11, mono=True)
            xs = [left + t * pitch for t in range(block)]
            draw_cells(svg, [xs[t] for t in written], [xs[t] for t in range(block) if t not in written], y, cell_w, cell_h)
        y0 += panel_h
    return svg


# ---------------------------------------------------------------- figure 2


def figure_active_lanes():
    check_fold_sources()
    file = "interleaved_tree.cu"
    block = header_int(kernel_source(file), "block", file)
    assert block == header_int(kernel_source("stride_tree.cu"), "block", "stride_tree.cu")
    warps = block // WARP
    forms = [
        ("Interleaved", "t % (2s) == 0", interleaved_rounds(block)),
        ("Stride", "t < s", stride_rounds(block)),
    ]
    for _, _, rounds in forms:
        assert fold_is_sum(rounds, block)
    totals = [sum(warps_with_work(a, block) for _, a in rounds) for _, _, rounds in forms]
    cell_w, cell_h, label_w, total_w = 30, 22, 52, 44
    panel_w = label_w + warps * cell_w + 6 + total_w
    gap = 700 - 2 * panel_w
    top = 60
    rows = len(forms[0][2])
    height = top + rows * cell_h + 70
    svg = Svg(
        "active-lanes",
        700,
        height,
        f"Active lanes of each warp per round, {block}-thread block, interleaved and stride folds",
        f"Two grids, one per fold form: rows are rounds, columns are the {warps} warps of a {block}-thread block, "
        f"each cell the number of the warp's {WARP} lanes whose condition holds. Interleaved: every warp has some "
        f"lanes active and the others masked until the stride reaches {WARP}; {totals[0]} warp-rounds with work. "
        f"Stride: each warp is either fully active or idle until fewer than {WARP} threads remain, then only "
        f"warp 0 works; {totals[1]} warp-rounds with work.",
    )
    styles = {
        "full": dict(fill=GREEN, fill_opacity=0.5, stroke="currentColor", stroke_width=0.6),
        "part": dict(fill=ORANGE, fill_opacity=0.5, stroke="currentColor", stroke_width=0.6),
        "none": dict(fill="none", stroke="currentColor", stroke_width=0.5, stroke_opacity=0.4, stroke_dasharray="2 2"),
    }
    for p, ((name, cond, rounds), total) in enumerate(zip(forms, totals)):
        x0 = p * (panel_w + gap)
        svg.text(x0, 16, f"{name}:", size=13, weight="bold")
        svg.text(x0 + 8.5 * len(name) + 12, 16, cond, mono=True)
        svg.text(x0, 34, f"active lanes of {WARP}, per warp and round", size=11, opacity=0.85)
        gx = x0 + label_w
        tx = gx + warps * cell_w + 6
        for w in range(warps):
            svg.text(gx + w * cell_w + cell_w / 2, top - 6, f"w{w}", size=11, anchor="middle", opacity=0.85)
        svg.text(tx + total_w / 2, top - 20, "warps", size=10, anchor="middle", opacity=0.85)
        svg.text(tx + total_w / 2, top - 7, "working", size=10, anchor="middle", opacity=0.85)
        cells = {"full": [], "part": [], "none": []}
        for r, (stride, active) in enumerate(rounds):
            y = top + r * cell_h
            svg.text(gx - 6, y + 15, f"s={stride}", size=11, anchor="end", mono=True)
            counts = lanes_per_warp(active, block)
            for w, c in enumerate(counts):
                kind = "full" if c == WARP else "part" if c else "none"
                cells[kind].append((gx + w * cell_w, y, c))
            svg.text(tx + total_w / 2, y + 15, warps_with_work(active, block), size=11, anchor="middle", mono=True)
        for kind, found in cells.items():
            svg.open(**styles[kind])
            for x, y, _ in found:
                svg.rect(x + 1, y + 1, cell_w - 2, cell_h - 2)
            svg.close()
            svg.open(font_size=11, text_anchor="middle", font_family=MONO, fill_opacity=0.45 if kind == "none" else None)
            for x, y, c in found:
                svg.items.append(f'<text x="{num(x + cell_w / 2)}" y="{num(y + 15)}">{c}</text>')
            svg.close()
        y = top + rows * cell_h
        svg.line(tx, y + 3, tx + total_w, y + 3, stroke="currentColor", stroke_width=0.8)
        svg.text(tx + total_w / 2, y + 18, total, size=12, anchor="middle", mono=True, weight="bold")
        svg.text(tx - 6, y + 18, "warp-rounds with work", size=11, anchor="end", opacity=0.85)
    ly = height - 38
    legend = [
        ("full", f"{WARP}: the whole warp works"),
        ("part", f"1 to {WARP - 1}: the other lanes are masked"),
        ("none", "0: no lane works"),
    ]
    x = 0
    for kind, label in legend:
        svg.open(**styles[kind])
        svg.rect(x, ly, 18, 14)
        svg.close()
        svg.text(x + 24, ly + 11, label, size=11)
        x += 44 + 6 * len(label)
    svg.text(0, height - 8, "Counted from the kernels' conditions; what the compiled code issues for masked or idle warps is in the SASS.", size=10, opacity=0.8)
    return svg


# ---------------------------------------------------------------- figure 3


def figure_shuffle_down():
    src = kernel_source("fast_reduce.cu")
    first = int(
        expect(
            r"for \(int offset = (\d+); offset > 0; offset /= 2\)\s*\{\s*v \+= __shfl_down_sync\(0xffffffffu, v, offset\);",
            src,
            "warp_sum's shuffle loop in fast_reduce.cu",
        ).group(1)
    )
    rounds = shuffle_rounds(first)
    assert rounds[-1][1][0] == (1 << WARP) - 1, "lane 0 must end with all 32 lanes"
    left, pitch, cell_w, cell_h, row_h = 54, 17.5, 13, 14, 40
    right = left + WARP * pitch
    top = 62
    height = top + len(rounds) * row_h + cell_h + 30
    svg = Svg(
        "shuffle-down",
        700,
        height,
        f"The shuffle-down pattern of warp_sum over {WARP} lanes",
        f"One row per step of v += __shfl_down_sync(0xffffffff, v, offset), offsets "
        f"{', '.join(str(o) for o, _ in rounds)}. Arrows run from lane i + offset to lane i. Solid arrows and "
        f"filled lanes are the ones whose sums reach lane 0; lanes whose source would lie past lane {WARP - 1} "
        f"get their own value back and draw no arrow. After the last step lane 0 holds the sum of all {WARP} lanes.",
    )
    svg.text(0, 16, "v += __shfl_down_sync(0xffffffff, v, offset);", mono=True, weight="bold")
    svg.text(0, 34, "lane i adds the v of lane i + offset; filled lanes and blue arrows are what reaches lane 0", size=11, opacity=0.85)
    for lane in range(WARP):
        if lane % 4 == 0 or lane == WARP - 1:
            svg.text(left + lane * pitch + cell_w / 2, top - 6, lane, size=10, anchor="middle", opacity=0.8, mono=True)
    svg.text(left - 8, top - 6, "offset", size=10, anchor="end", opacity=0.8)
    svg.text(right + 6, top - 20, "lane 0", size=10, opacity=0.8)
    svg.text(right + 6, top - 6, "holds", size=10, opacity=0.8)
    xs = [left + lane * pitch for lane in range(WARP)]
    centre = [x + cell_w / 2 for x in xs]
    for r in range(len(rounds) + 1):
        y = top + r * row_h
        if r == 0:
            held = [1 << lane for lane in range(WARP)]
            used = set(range(WARP))
            svg.text(left - 8, y + 11, "v", size=11, anchor="end", mono=True)
        else:
            offset, held = rounds[r - 1]
            # After this step lane 0 reads, through later steps, only lanes
            # 0 .. offset-1; the other sums are computed and never read.
            used = set(range(offset))
            svg.text(left - 8, y + 11, offset, size=11, anchor="end", mono=True)
            prev_y = y - row_h + cell_h
            moves = [(lane + offset, lane) for lane in range(WARP) if lane + offset < WARP]
            svg.open(stroke="currentColor", stroke_width=0.6, stroke_opacity=0.22)
            for src_lane, lane in moves:
                if lane not in used:
                    svg.line(centre[src_lane], prev_y + 0.5, centre[lane], y - 0.5)
            svg.close()
            draw_arrows(svg, [(centre[s], centre[d]) for s, d in moves if d in used], prev_y, y, width=1.0)
        draw_cells(svg, [xs[i] for i in sorted(used)], [xs[i] for i in range(WARP) if i not in used], y, cell_w, cell_h)
        count = bin(held[0]).count("1")
        svg.text(right + 6, y + 11, f"{count} value{'s' if count > 1 else ''}", size=11, mono=True)
    svg.text(
        0,
        height - 8,
        "The mask is full: every lane takes part in every step. Faint lines: sums no one reads; "
        f"lanes above {WARP - 1} − offset get their own value back.",
        size=10,
        opacity=0.8,
    )
    return svg


# ---------------------------------------------------------------- figure 4


def figure_warp_tiles():
    file = "fast_reduce.cu"
    src = kernel_source(file)
    lif = int(expect(r"#define LOADS_IN_FLIGHT (\d+)", src, "LOADS_IN_FLIGHT in fast_reduce.cu").group(1))
    # The lines the mirror in FastReduce follows; any change here stops the script.
    for line in [
        "const unsigned int tile = 32 * LOADS_IN_FLIGHT;",
        "unsigned int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;",
        "unsigned int warps = gridDim.x * blockDim.x / 32;",
        "unsigned int tiles = n4 / tile;",
        "for (unsigned int t = warp; t < tiles; t += warps) {",
        "const float4* p = x4 + t * tile + lane;",
        "v[k] = p[32 * k];",
        "for (unsigned int i = tiles * tile + blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {",
        "unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;",
        "if (first < n - 4 * n4) {",
        "acc[0] += x[4 * n4 + first];",
    ]:
        expect(re.escape(line), src, f"`{line}` in {file}")
    block = header_int(src, "block", file)
    formula = header_grid(src, file)
    sms, _, store = store_sm_count()
    # The grid computed here must be the one the runner launched.
    for size in store["sizes"]:
        launched = int(re.match(r"reduce_fast: (\d+) x", size["launches"][0]).group(1))
        assert launched == eval_grid(formula, size["n"], sms), (size["n"], launched)

    big_n = 1 << 28
    small_n = 1 << 20
    odd_n = max(e["n"] for e in store["edge_checks"])
    big = FastReduce(big_n, eval_grid(formula, big_n, sms), block, lif)
    small = FastReduce(small_n, eval_grid(formula, small_n, sms), block, lif)
    odd = FastReduce(odd_n, eval_grid(formula, odd_n, sms), block, lif)
    assert small.covers_every_element_once() and odd.covers_every_element_once()
    # 2^28 is too large to enumerate here: whole tiles, no remainder, equal trips.
    assert big.n4 == big.tiles * big.tile and big.n % 4 == 0
    assert big.trips(0) == big.trips(big.warps - 1)

    tile_bytes = big.tile * 16
    load_bytes = WARP * 16
    trips = big.trips(0)
    per_thread = trips * lif * 4
    warps_per_block = block // WARP
    small_with_tile = [w for w in range(small.warps) if small.trips(w)]
    small_blocks = sorted({w // warps_per_block for w in small_with_tile})
    odd_with_tile = [w for w in range(odd.warps) if odd.trips(w)]
    odd_rest, odd_tail = odd.readers()
    assert max(odd_rest + odd_tail) < block, "the remainder and tail threads are all in block 0"

    svg = Svg(
        "warp-tiles",
        700,
        0,
        "How fast_reduce.cu's threads read the input: warp tiles, loads in flight, the grid stride",
        f"Top: one warp tile of {big.tile} float4s ({tile_bytes} bytes) drawn as {lif} rows of {WARP}; row k is the "
        f"warp's load k, p[32*k], {load_bytes} contiguous bytes, and lane l reads column l of every row, {lif} "
        f"independent loads in flight before the first addition. Middle: at n = {power_text(big_n)}, "
        f"{big.grid} blocks of {block} threads make {big.warps} warps, and warp w reads tiles w, w + {big.warps}, "
        f"w + {2 * big.warps} and so on: {trips} tiles per warp, {per_thread} floats per thread. Bottom: at "
        f"n = {power_text(small_n)} the grid is still {small.grid} blocks but there are only {small.tiles} tiles, "
        f"so blocks {lane_ranges(small_blocks)} read one tile per warp and the other "
        f"{small.grid - len(small_blocks)} blocks read nothing; at n = {odd_n:,} the float4s after the "
        f"last whole tile go one per thread to threads {lane_ranges(odd_rest)} of block 0 and the last "
        f"{odd_n % 4} floats to threads {lane_ranges(odd_tail)} of block 0.",
    )

    # Top: one tile, as the warp's loads.
    left, pitch, cell_w, cell_h, row_h = 58, 15, 12.5, 16, 21
    svg.text(0, 16, f"One warp tile: {WARP} lanes × {lif} loads = {big.tile} float4s = {tile_bytes // 1024} KiB", size=13, weight="bold")
    svg.text(0, 33, f"p = x4 + t·tile + lane;  v[k] = p[32·k], k = 0 … {lif - 1}, all issued before any addition", size=11, mono=True)
    example = 5
    ty = 58
    for lane in range(WARP):
        if lane % 4 == 0 or lane == WARP - 1 or lane == example:
            bold = lane == example
            svg.text(left + lane * pitch + cell_w / 2, ty - 5, lane, size=10, anchor="middle", mono=True, opacity=None if bold else 0.75, weight="bold" if bold else None)
    svg.text(left - 8, ty - 5, "lane", size=10, anchor="end", opacity=0.75)
    for k in range(lif):
        y = ty + k * row_h
        svg.text(left - 8, y + 12, f"load {k}", size=11, anchor="end", mono=True)
        svg.open(fill=LOAD_COLOURS[k % len(LOAD_COLOURS)], fill_opacity=0.45, stroke="currentColor", stroke_width=0.5)
        for lane in range(WARP):
            svg.rect(left + lane * pitch, y, cell_w, cell_h)
        svg.close()
        svg.text(left + WARP * pitch + 4, y + 12, f"t·{big.tile}+{k * WARP}…{k * WARP + WARP - 1}", size=10, mono=True)
    ex_x = left + example * pitch
    svg.rect(ex_x - 2, ty - 2, cell_w + 4, (lif - 1) * row_h + cell_h + 4, fill="none", stroke="currentColor", stroke_width=1.8, rx=2)
    reads = ", ".join(f"t·{big.tile}+{example + WARP * k}" for k in range(lif))
    below = ty + (lif - 1) * row_h + cell_h + 16
    svg.text(left, below, f"lane {example} reads float4s {reads}: {lif} loads in flight, {lif} accumulators", size=11)
    svg.text(left, below + 15, f"each row is one load instruction of the warp: {WARP} × 16 B = {load_bytes} contiguous bytes", size=11)

    # Middle: the grid stride over tiles.
    my = below + 50
    svg.text(0, my, f"The grid walks the tiles, n = {power_text(big_n)}: {big.grid} blocks × {warps_per_block} warps = {big.warps:,} warps, {big.tiles:,} tiles", size=13, weight="bold")
    svg.text(0, my + 17, f"warp w reads tiles w, w + {big.warps:,}, w + {2 * big.warps:,}, …: {trips} trips, {trips} × {lif} × 4 = {per_thread} floats per thread", size=11)
    strip_y = my + 30
    last_of_warp0 = (trips - 1) * big.warps
    shown = [0, 1, None, big.warps - 1, big.warps, big.warps + 1, None, last_of_warp0, None, big.tiles - 1]
    box_w, gap_w, dots_w = 78, 5, 20
    x = 0
    for t in shown:
        if t is None:
            svg.text(x + dots_w / 2, strip_y + 22, "…", size=14, anchor="middle")
            x += dots_w + gap_w
            continue
        w = t % big.warps
        colour = BLUE if w == 0 else ORANGE if w == 1 else "currentColor"
        svg.rect(x, strip_y, box_w, 32, fill=colour, fill_opacity=0.45 if w < 2 else 0.08, stroke="currentColor", stroke_width=0.7, rx=1.5)
        svg.text(x + box_w / 2, strip_y + 13, f"tile {t:,}", size=10, anchor="middle", mono=True)
        svg.text(x + box_w / 2, strip_y + 27, f"warp {w:,}", size=10, anchor="middle", mono=True)
        x += box_w + gap_w
    svg.text(0, strip_y + 50, f"Each trip, the grid's {big.warps:,} warps read {big.warps:,} consecutive tiles ({big.warps * tile_bytes // (1 << 20)} MiB); warp {big.warps - 1:,} is the last of block {big.grid - 1}.", size=11, opacity=0.85)

    # Bottom: small inputs.
    by = strip_y + 86
    svg.text(0, by, f"Small input, n = {power_text(small_n)}: {small.grid} blocks ({small.warps:,} warps), {small.tiles:,} tiles", size=13, weight="bold")
    bar_w, bar_y = 640, by + 10
    unit = bar_w / small.grid
    reading = len(small_blocks)
    svg.rect(0, bar_y, reading * unit, 22, fill=BLUE, fill_opacity=0.5, stroke="currentColor", stroke_width=0.7)
    svg.rect(reading * unit, bar_y, (small.grid - reading) * unit, 22, fill="none", stroke="currentColor", stroke_width=0.7, stroke_dasharray="3 2")
    svg.text(reading * unit / 2, bar_y + 15, f"blocks {lane_ranges(small_blocks)}", size=11, anchor="middle")
    svg.text(reading * unit + (small.grid - reading) * unit / 2, bar_y + 15, f"blocks {reading}–{small.grid - 1}: no tile, read nothing", size=11, anchor="middle")
    svg.text(0, bar_y + 38, f"{len(small_with_tile):,} warps read one tile each ({lif} float4s per thread); the other {small.warps - len(small_with_tile):,} warps only take part in block_sum.", size=11)

    # Bottom: the tails.
    oy = bar_y + 70
    svg.text(0, oy, f"Tails, n = {odd_n:,}: {odd.grid} blocks, {odd.tiles:,} whole tiles", size=13, weight="bold")
    rows = [
        (BLUE, f"float4 0 … {odd.tiles * odd.tile - 1:,}", f"whole tiles: warps {lane_ranges(odd_with_tile)}, one tile each"),
        (GREEN, f"float4 {odd.tiles * odd.tile:,} … {odd.n4 - 1:,}", f"after the last tile, one per thread: threads {lane_ranges(odd_rest)} of block 0"),
        (PURPLE, f"float {4 * odd.n4:,} … {odd.n - 1:,}", f"the last n mod 4 = {odd.n % 4}: threads {lane_ranges(odd_tail)} of block 0"),
    ]
    for i, (colour, what, who) in enumerate(rows):
        y = oy + 12 + i * 22
        svg.rect(0, y, 14, 14, fill=colour, fill_opacity=0.5, stroke="currentColor", stroke_width=0.6)
        svg.text(22, y + 11, what, size=11, mono=True)
        svg.text(240, y + 11, who, size=11)
    svg.height = oy + 12 + len(rows) * 22
    return svg


# ---------------------------------------------------------------- figure 5


STRIDED_LINES = {
    "fold_strided_index.cu": [
        "for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {",
        "unsigned int index = 2 * stride * tid;",
        "if (index < blockDim.x) {",
        "s[index] += s[index + stride];",
    ],
    "fold_strided_pad32.cu": [
        "#define PAD 32",
        "return w + w / PAD;",
        "unsigned int index = 2 * stride * tid;",
        "if (index < blockDim.x) {",
        "s[padded(index)] += s[padded(index + stride)];",
    ],
}


def strided_rounds(block):
    """fold_strided_index.cu's fold: (stride, working tids) per round, each
    tid reading and writing word 2 * stride * tid and reading the word
    stride above it."""
    rounds = []
    stride = 1
    while stride < block:
        rounds.append((stride, [tid for tid in range(block) if 2 * stride * tid < block]))
        stride *= 2
    return rounds


def words_per_bank(words):
    """The most distinct words any one bank serves for one access of a warp:
    the passes the access takes (lanes on the same word share it)."""
    banks = {}
    for w in words:
        banks.setdefault(w % WARP, set()).add(w)
    return max(len(v) for v in banks.values()) if banks else 0


def strided_extra_passes(block, pad):
    """Passes beyond the first over a block's fold: per warp and round, the
    load and the store of word 2·s·tid and the load of the word s above."""
    extra = 0
    for stride, active in strided_rounds(block):
        for warp in range(block // WARP):
            lanes = [t for t in active if t // WARP == warp]
            if not lanes:
                continue
            own = words_per_bank([pad(2 * stride * t) for t in lanes])
            partner = words_per_bank([pad(2 * stride * t + stride) for t in lanes])
            extra += 2 * (own - 1) + (partner - 1)
    return extra


def figure_strided_banks():
    for file, lines in STRIDED_LINES.items():
        src = kernel_source(file)
        for line in lines:
            expect(re.escape(line), src, f"`{line}` in {file}")
    file = "fold_strided_index.cu"
    src = kernel_source(file)
    block = header_int(src, "block", file)
    assert block == header_int(kernel_source("fold_strided_pad32.cu"), "block", "fold_strided_pad32.cu")
    rounds = strided_rounds(block)
    s_fold = [1 << t for t in range(block)]
    for stride, active in rounds:
        for t in active:
            assert 2 * stride * t + stride < block
            s_fold[2 * stride * t] += s_fold[2 * stride * t + stride]
    assert s_fold[0] == (1 << block) - 1, "the strided fold must sum the block"
    plain = lambda w: w  # noqa: E731
    pad32 = lambda w: w + w // WARP  # noqa: E731
    n = 1 << 24
    blocks = -(-n // block)
    extra_plain = strided_extra_passes(block, plain)
    extra_pad = strided_extra_passes(block, pad32)
    assert extra_pad == 0, "the padded layout must be free of conflicts"

    shown = [r for r in rounds if r[0] <= 8]
    rows = block // WARP
    cell_w, cell_h = 9.25, 12
    grid_w = WARP * cell_w
    label_w, gap_x = 40, 22
    panel_w = label_w + grid_w
    head_h, panel_h = 34, 30 + rows * cell_h + 26
    grids_top = 58
    table_top = grids_top + 2 * panel_h + 12
    row_h = 17
    height = table_top + (len(rounds) + 3) * row_h + 30
    svg = Svg(
        "strided-banks",
        700,
        height,
        f"Shared-memory words and banks touched by warp 0 of fold_strided_index, {block}-thread block",
        f"Four grids, one per round with stride s = 1, 2, 4 and 8: the block's {block} shared-memory words laid out "
        f"{WARP} to a row, so that each column is one bank (word w lies in bank w mod {WARP}). Blue cells are the "
        f"words warp 0's lanes read and write, word 2·s·k for lane k; orange cells the words they read s above. "
        f"Each cell is labelled with its lane. With s = 1 each even bank holds two of the blue words, with s = 2 "
        f"four, with s = 4 and 8 eight: a bank serves one word per pass. The table gives every round: the working "
        f"lanes of warp 0, the most words of one bank in each access, the same with one padding word after every "
        f"{WARP} (always 1), and the passes beyond the first over the block, {extra_plain} in all.",
    )
    svg.text(0, 16, "s[index] += s[index + stride];   index = 2 * stride * tid", mono=True, weight="bold")
    svg.text(0, 34, f"Warp 0's words in the block's {block} shared-memory words, {WARP} to a row: a column is a bank", size=11, opacity=0.85)
    svg.rect(0, 42, 12, 10, fill=BLUE, fill_opacity=0.55, stroke="currentColor", stroke_width=0.5)
    svg.text(16, 51, "s[2·s·k], read and written by lane k", size=10)
    svg.rect(230, 42, 12, 10, fill=ORANGE, fill_opacity=0.55, stroke="currentColor", stroke_width=0.5)
    svg.text(246, 51, "s[2·s·k + s], read by lane k", size=10)
    for p, (stride, active) in enumerate(shown):
        x0 = (p % 2) * (panel_w + gap_x)
        y0 = grids_top + (p // 2) * panel_h
        lanes = [t for t in active if t < WARP]
        own = {2 * stride * t: t for t in lanes}
        partner = {2 * stride * t + stride: t for t in lanes}
        svg.text(x0, y0 + 12, f"s = {stride}", size=12, weight="bold", mono=True)
        svg.text(
            x0 + 52,
            y0 + 12,
            f"lanes 0–{lanes[-1]}: up to {words_per_bank(list(own))} words in one bank",
            size=11,
            opacity=0.85,
        )
        gx, gy = x0 + label_w, y0 + 22
        for b in range(0, WARP, 8):
            svg.text(gx + b * cell_w + cell_w / 2, gy + 6, b, size=8, anchor="middle", opacity=0.7, mono=True)
        gy += 10
        svg.open(fill="none", stroke="currentColor", stroke_width=0.3, stroke_opacity=0.35)
        for r in range(rows):
            for b in range(WARP):
                if r * WARP + b not in own and r * WARP + b not in partner:
                    svg.rect(gx + b * cell_w, gy + r * cell_h, cell_w, cell_h)
        svg.close()
        for words, colour in ((own, BLUE), (partner, ORANGE)):
            svg.open(fill=colour, fill_opacity=0.55, stroke="currentColor", stroke_width=0.5)
            for w in words:
                svg.rect(gx + (w % WARP) * cell_w, gy + (w // WARP) * cell_h, cell_w, cell_h)
            svg.close()
            svg.open(font_size=7, text_anchor="middle", font_family=MONO)
            for w, lane in words.items():
                x, y = gx + (w % WARP) * cell_w + cell_w / 2, gy + (w // WARP) * cell_h + 9
                svg.items.append(f'<text x="{num(x)}" y="{num(y)}">{lane}</text>')
            svg.close()
        for r in range(rows):
            svg.text(gx - 4, gy + r * cell_h + 9, f"w {r * WARP}", size=8, anchor="end", opacity=0.7, mono=True)
    cols = [0, 70, 250, 380, 540]
    heads = ["round", "warp 0's lanes at work", "words of one bank", "with w + w/32", "passes beyond the first"]
    for x, h in zip(cols, heads):
        svg.text(x, table_top, h, size=11, weight="bold")
    svg.text(cols[2], table_top + row_h - 3, "2·s·k · 2·s·k + s", size=10, opacity=0.8, mono=True)
    svg.text(cols[4], table_top + row_h - 3, "in the block's warps", size=10, opacity=0.8)
    y = table_top + 2 * row_h
    for stride, active in rounds:
        lanes = [t for t in active if t < WARP]
        own = words_per_bank([2 * stride * t for t in lanes])
        partner = words_per_bank([2 * stride * t + stride for t in lanes])
        own_pad = words_per_bank([pad32(2 * stride * t) for t in lanes])
        partner_pad = words_per_bank([pad32(2 * stride * t + stride) for t in lanes])
        extra = 0
        for warp in range(block // WARP):
            ws = [t for t in active if t // WARP == warp]
            if ws:
                extra += 2 * (words_per_bank([2 * stride * t for t in ws]) - 1)
                extra += words_per_bank([2 * stride * t + stride for t in ws]) - 1
        svg.text(cols[0], y, f"s = {stride}", size=11, mono=True)
        svg.text(cols[1], y, f"{lane_ranges(lanes)} ({len(active)} in the block)", size=11, mono=True)
        svg.text(cols[2], y, f"{own} · {partner}", size=11, mono=True)
        svg.text(cols[3], y, f"{own_pad} · {partner_pad}", size=11, mono=True)
        svg.text(cols[4], y, extra, size=11, mono=True)
        y += row_h
    svg.line(cols[4], y - row_h + 5, cols[4] + 120, y - row_h + 5, stroke="currentColor", stroke_width=0.8)
    svg.text(cols[4], y, f"{extra_plain} per block", size=11, mono=True, weight="bold")
    svg.text(
        0,
        height - 8,
        f"Counted from the index arithmetic: the load and the store of s[2·s·k] and the load of s[2·s·k + s]; "
        f"{extra_plain} × {blocks:,} blocks at {power_text(n)} = {extra_plain * blocks:,}.",
        size=10,
        opacity=0.8,
    )
    return svg


FIGURES = {
    "tree_rounds.svg": figure_tree_rounds,
    "active_lanes.svg": figure_active_lanes,
    "shuffle_down.svg": figure_shuffle_down,
    "warp_tiles.svg": figure_warp_tiles,
    "strided_banks.svg": figure_strided_banks,
}


def write_figures(figures, out_dir, script, argv):
    """Draws every figure of `figures` (file name -> drawing function) into
    `out_dir`, or with --check in `argv` only says which files differ from a
    fresh drawing (exit status 1), naming `script` to run."""
    check = "--check" in argv[1:]
    stale = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, draw in figures.items():
        text = draw().render()
        assert "\n\n" not in text and "{{" not in text, f"{name}: would not pass through markdown as one block"
        path = out_dir / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"stale figures (run python3 {script}): " + ", ".join(stale))
        return 1
    return 0


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/reductions_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
