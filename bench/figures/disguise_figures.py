"""Draws the figures of "Reductions in disguise" as SVG, into src/images/disguise/.

Two pictures, each mirrored from the kernels it explains, with the constants
read out of their files:

- register_columns.svg: which columns of a row each thread of the cached
  softmax and layer-norm kernels holds in its registers, register k holding
  column 4 * (threadIdx.x + (k / 4) * blockDim.x) + k % 4 (VEC_PER_THREAD
  float4 loads a thread, from softmax_cached_block.cu and
  layernorm_cached_block.cu);
- cluster_exchange.svg: how the CLUSTER blocks of softmax_cluster_regs.cu
  exchange their (max, sum) pairs through distributed shared memory between
  the cluster barriers.

A kernel edit that the mirror no longer matches stops the script with the
line it expected. Drawing helpers (Svg, colours) are those of
reductions_figures.py, so the figures look alike and take the page's text
colour in every mdBook theme.

Standard library only. Usage, from the repository root:

    python3 bench/figures/disguise_figures.py          # write the SVGs
    python3 bench/figures/disguise_figures.py --check  # exit 1 if stale
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from reductions_figures import BLUE, GREEN, ORANGE, PURPLE, Svg, expect, write_figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels" / "disguise"
OUT_DIR = ROOT / "src" / "images" / "disguise"
THREAD_COLOURS = [BLUE, ORANGE, GREEN, PURPLE]

# The small block the layout figure draws: four threads, one colour each.
# The kernels' blocks have 32 to 1024 threads; the layout is the same.
DRAWN_THREADS = 4


# ---------------------------------------------------------------- mirrors


def kernel_source(name):
    return (KERNELS / name).read_text()


def vec_per_thread(name):
    """VEC_PER_THREAD of a cached kernel, after checking that its load loop is
    the one the layout figure mirrors: float4 i = threadIdx.x + k * blockDim.x
    of the row, unpacked into v[4k] ... v[4k + 3]."""
    source = kernel_source(name)
    vec = int(expect(r"#define VEC_PER_THREAD (\d+)", source, f"VEC_PER_THREAD in {name}").group(1))
    expect(r"for \(int k = 0; k < VEC_PER_THREAD; \+\+k\)", source, f"the float4 load loop of {name}")
    expect(r"unsigned int i = threadIdx\.x \+ k \* blockDim\.x;", source, f"the float4 index of {name}")
    for j, field in enumerate("xyzw"):
        offset = f" \\+ {j}" if j else ""
        expect(rf"v\[4 \* k{offset}\] = t\.{field};", source, f"v[4 * k{' + ' + str(j) if j else ''}] = t.{field} in {name}")
    return vec


def column_of(thread, k, block):
    """The column register k of `thread` holds, as the load loop writes it:
    float4 number thread + (k / 4) * block of the row, element k % 4 of it."""
    return 4 * (thread + (k // 4) * block) + k % 4


def layout_is_a_partition(vec, block):
    """Every column of a row of 4 * vec * block floats is held by exactly one
    register of one thread: the picture loses no column and draws none twice."""
    held = sorted(column_of(t, k, block) for t in range(block) for k in range(4 * vec))
    return held == list(range(4 * vec * block))


def cluster_constants():
    """CLUSTER of softmax_cluster_regs.cu, after checking the exchange the
    figure draws: the block's pair stored by thread 0 into `partial`, a full
    cluster barrier, lane r < CLUSTER of each warp reading block r's
    `partial`, a warp merge, an arrive after the reads and a wait at the end."""
    name = "softmax_cluster_regs.cu"
    source = kernel_source(name)
    cluster = int(expect(r"#define CLUSTER (\d+)", source, f"CLUSTER in {name}").group(1))
    expect(r"__cluster_dims__\(CLUSTER, 1, 1\)", source, f"__cluster_dims__(CLUSTER, 1, 1) in {name}")
    steps = [
        (r"if \(threadIdx\.x == 0\) \{\s*partial = block;", "thread 0 storing the block's pair in `partial`"),
        (r"__cluster_barrier_arrive\(\);\s*__cluster_barrier_wait\(\);", "the full cluster barrier"),
        (r"if \(lane < CLUSTER\) \{\s*other = \*static_cast<MaxSum\*>\(__cluster_map_shared_rank\(&partial, lane\)\);", "lane r reading block r's `partial`"),
        (r"MaxSum total = warp_merge\(other\);", "the warp merge of the eight pairs"),
        (r"__cluster_barrier_arrive\(\);", "the arrive after the remote reads"),
        (r"__cluster_barrier_wait\(\);\s*\}\s*$", "the wait at the kernel's end"),
    ]
    position = 0
    for pattern, what in steps:
        match = re.compile(pattern).search(source, position)
        if not match:
            sys.exit(f"disguise_figures.py: {what} not found in order in {name} (pattern {pattern!r}); update the mirror")
        position = match.end()
    return cluster


# ---------------------------------------------------------------- figures


def figure_register_columns():
    vec = vec_per_thread("softmax_cached_block.cu")
    if vec_per_thread("layernorm_cached_block.cu") != vec:
        sys.exit("disguise_figures.py: the softmax and layer-norm cached kernels hold different numbers of float4; draw both")
    block = DRAWN_THREADS
    assert layout_is_a_partition(vec, block), "the mirrored layout leaves a column out or holds one twice"
    per_thread = 4 * vec
    cols = per_thread * block

    cell = 5
    left = 64
    width = left + cols * cell + 20
    svg = Svg(
        "register-columns",
        width,
        0,
        "Which columns of a row each thread of the cached kernels holds in its registers",
        f"A row of {cols} floats held by a block of {block} threads, {vec} float4 loads a thread, as in "
        "softmax_cached_block and layernorm_cached_block. Load k of every thread reads float4 number "
        "threadIdx.x + k * blockDim.x, so the block's k-th loads cover one contiguous stretch of 4 * blockDim.x "
        "columns and register k of thread t holds column 4 * (t + (k / 4) * blockDim.x) + k % 4. "
        "Lines join thread 1's registers to its columns.",
    )
    svg.text(0, 16, "register k of thread t holds column 4·(t + ⌊k/4⌋·blockDim.x) + k mod 4", size=13, weight="bold", mono=True)
    svg.text(
        0,
        34,
        f"drawn for a block of {block} threads and {vec} float4 loads a thread (VEC_PER_THREAD = {vec}, as in the kernels, whose blocks have 32 to 1024 threads)",
        size=11,
        opacity=0.85,
    )

    # The row: one cell per column, filled with the colour of its thread,
    # grouped by the load that reads it.
    row_y = 66
    svg.text(left - 8, row_y + 12, "row", size=11, anchor="end")
    stretch = 4 * block
    for k in range(vec):
        x0 = left + k * stretch * cell
        svg.text(x0 + stretch * cell / 2, row_y - 8, f"load {k}", size=10, anchor="middle", opacity=0.85)
        svg.text(x0, row_y + 30, f"{k * stretch}", size=9, mono=True, opacity=0.8)
    for t in range(block):
        svg.open(fill=THREAD_COLOURS[t], fill_opacity=0.55)
        for k in range(per_thread):
            svg.rect(left + column_of(t, k, block) * cell, row_y, cell, 16)
        svg.close()
    svg.open(fill="none", stroke="currentColor", stroke_width=0.8)
    for k in range(vec):
        svg.rect(left + k * stretch * cell, row_y, stretch * cell, 16)
    svg.close()
    svg.text(left + cols * cell, row_y + 30, f"{cols - 1}", size=9, mono=True, anchor="end", opacity=0.8)

    # The registers: one line per thread, v[0] ... v[per_thread - 1], each
    # float4 group labelled with the first column it holds.
    reg_cell = min(cell * 3, (width - left - 20) / per_thread)
    regs_y = row_y + 74
    svg.text(left, regs_y - 12, f"registers v[0] … v[{per_thread - 1}] of each thread, four per float4 load; the number under a group is its first column", size=11, opacity=0.85)
    links = []
    for t in range(block):
        y = regs_y + t * 34
        svg.text(left - 8, y + 12, f"thread {t}", size=11, anchor="end")
        svg.open(fill=THREAD_COLOURS[t], fill_opacity=0.55, stroke="currentColor", stroke_width=0.4)
        for k in range(per_thread):
            svg.rect(left + k * reg_cell, y, reg_cell, 16)
        svg.close()
        for g in range(vec):
            x = left + 4 * g * reg_cell
            svg.text(x + 2 * reg_cell, y + 27, f"{column_of(t, 4 * g, block)}", size=9, anchor="middle", mono=True, opacity=0.85)
            if t == 1:
                links.append((x + 2 * reg_cell, y, left + (column_of(t, 4 * g, block) + 2) * cell, row_y + 16))
    svg.open(stroke=ORANGE, stroke_width=0.9, stroke_opacity=0.9)
    for x1, y1, x2, y2 in links:
        svg.line(x1, y1, x2, y2 + 0.5)
    svg.close()
    bottom = regs_y + block * 34 + 8
    svg.text(
        0,
        bottom,
        f"The block's k-th loads read {stretch} consecutive floats; in the kernels the k-th loads of a warp's 32 lanes read 128 consecutive floats (512 bytes).",
        size=11,
        opacity=0.85,
    )
    svg.height = bottom + 8
    return svg


def figure_cluster_exchange():
    cluster = cluster_constants()
    box_w, gap = 74, 10
    left = 150
    width = left + cluster * box_w + (cluster - 1) * gap + 10
    svg = Svg(
        "cluster-exchange",
        width,
        0,
        "How the blocks of a cluster exchange their partial results through distributed shared memory",
        f"A cluster of {cluster} blocks owns one row, each block an eighth of it. Each block merges its threads' "
        "(max, sum) pairs and thread 0 stores the block's pair in the block's shared variable partial. A cluster "
        "barrier (arrive with release semantics, wait with acquire semantics) makes every partial visible to every "
        "block. Then in every warp of every block, lane r reads block r's partial through distributed shared memory, "
        "and a warp merge leaves the row's pair in every lane. Each block arrives again when done reading, and waits "
        "at its end, so that no block exits while another may still read its shared memory.",
    )

    def x_of(rank):
        return left + rank * (box_w + gap)

    svg.text(0, 16, f"A cluster of {cluster} blocks, one row: __cluster_dims__({cluster}, 1, 1)", size=13, weight="bold")
    # Stage labels down the left side, blocks across.
    y = 40
    for r in range(cluster):
        svg.text(x_of(r) + box_w / 2, y, f"block {r}", size=11, anchor="middle", weight="bold")
    # 1. slices of the row.
    y += 10
    svg.text(left - 10, y + 13, "slice of the row", size=11, anchor="end")
    for r in range(cluster):
        svg.rect(x_of(r), y, box_w, 18, fill=BLUE, fill_opacity=0.25, stroke="currentColor", stroke_width=0.6)
        svg.text(x_of(r) + box_w / 2, y + 13, f"eighth {r}", size=9, anchor="middle", mono=True)
    # 2. registers, local merge, partial.
    y += 30
    svg.text(left - 10, y + 13, "block_merge", size=11, anchor="end")
    svg.text(left - 10, y + 26, "→ partial", size=11, anchor="end", mono=True)
    for r in range(cluster):
        svg.rect(x_of(r), y, box_w, 30, fill=GREEN, fill_opacity=0.3, stroke="currentColor", stroke_width=0.6, rx=2)
        svg.text(x_of(r) + box_w / 2, y + 13, "partial", size=10, anchor="middle", mono=True)
        svg.text(x_of(r) + box_w / 2, y + 25, f"(m{r}, d{r})", size=10, anchor="middle", mono=True)
    partial_y = y + 30
    # 3. barrier.
    y += 46
    right = x_of(cluster - 1) + box_w
    svg.line(left - 4, y, right + 4, y, stroke="currentColor", stroke_width=1.6, stroke_dasharray="6 3")
    svg.text(left - 10, y - 2, "cluster barrier", size=11, anchor="end", weight="bold")
    svg.text(left - 10, y + 11, "arrive.release", size=10, anchor="end", mono=True)
    svg.text(left - 10, y + 23, "wait.acquire", size=10, anchor="end", mono=True)
    # 4. DSMEM reads into one warp of block 2 (every warp of every block does the same).
    y += 56
    reader = 2
    lane_w = box_w / cluster
    svg.text(left - 10, y + 4, "lane r reads", size=11, anchor="end")
    svg.text(left - 10, y + 17, "block r's partial", size=11, anchor="end")
    svg.open(fill=ORANGE, fill_opacity=0.45, stroke="currentColor", stroke_width=0.5)
    for lane in range(cluster):
        svg.rect(x_of(reader) + lane * lane_w, y, lane_w, 18)
    svg.close()
    for lane in range(cluster):
        svg.text(x_of(reader) + (lane + 0.5) * lane_w, y + 13, f"{lane}", size=8, anchor="middle", mono=True)
    svg.open(stroke=ORANGE, stroke_width=0.9, marker_end=svg.marker(ORANGE))
    for r in range(cluster):
        svg.line(x_of(r) + box_w / 2, partial_y + 2, x_of(reader) + (r + 0.5) * lane_w, y - 1)
    svg.close()
    svg.text(x_of(reader) + box_w + 8, y + 6, f"lanes 0–{cluster - 1} of one warp of block {reader}, each a load through DSMEM", size=10, opacity=0.85)
    svg.text(x_of(reader) + box_w + 8, y + 19, "of *__cluster_map_shared_rank(&partial, lane);", size=10, mono=True, opacity=0.85)
    svg.text(x_of(reader) + box_w + 8, y + 32, "every warp of every block reads the same way", size=10, opacity=0.85)
    # 5. merge, arrive, stores, wait.
    y += 44
    steps = [
        ("warp_merge", f"a butterfly of shuffles merges the {cluster} pairs: the row's (M, D) in every lane"),
        ("arrive", "done reading other blocks' shared memory (barrier.cluster.arrive)"),
        ("stores", "each thread rescales its registers and writes its columns"),
        ("wait", "no block exits, freeing its partial, before every block has read it (barrier.cluster.wait)"),
    ]
    for name, what in steps:
        svg.text(left - 10, y + 12, name, size=11, anchor="end", mono=True)
        svg.text(left, y + 12, what, size=10.5)
        y += 20
    svg.height = y + 4
    return svg


FIGURES = {
    "register_columns.svg": figure_register_columns,
    "cluster_exchange.svg": figure_cluster_exchange,
}


def main(argv):
    return write_figures(FIGURES, OUT_DIR, "bench/figures/disguise_figures.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
