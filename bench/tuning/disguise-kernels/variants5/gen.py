#!/usr/bin/env python3
"""Writes this folder's probe files (README.md): the three cluster-of-16
ones from kernels/disguise/layernorm_cluster_pipelined.cu, and the
persistent softmax from softmax_v4_prefetch.cu.in, headers inlined.
probe.sh runs it. Run from anywhere: python3 gen.py
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe_gen  # noqa: E402  (../probe_gen.py)


def define(name, value, comment):
    return f"#define {name} {value}".ljust(43) + f"// {comment}\n"


BASE = "layernorm_cluster_pipelined.cu"
for name, regs, smem, ahead, early, what in [
        ("layernorm_c16_pipelined", 4, 4, 2, 1, "16 blocks a row, 4 float4 in registers and 4 in shared memory a thread."),
        ("layernorm_c16_wb4", 4, 4, 4, 2, "(c16_pipelined) with 4 weight/bias pairs ahead, 2 of them before the barrier."),
        ("layernorm_c16_smem", 2, 6, 4, 2, "(c16_wb4) with 2 float4 in registers and 6 in shared memory a thread.")]:
    probe_gen.variant(HERE, BASE, name, what, [
        ('grid = "8 * rows"', 'grid = "16 * rows"'),
        ('shared = "128 * block0"', f'shared = "{16 * smem} * block0"'),
        (define("CLUSTER", 8, "blocks per row; the 8 in the grid"),
         define("CLUSTER", 16, "blocks per row; the 16 in the grid (non-portable size)")),
        (define("VEC_IN_REGS", 8, "float4 held in registers per thread"),
         define("VEC_IN_REGS", regs, "float4 held in registers per thread")),
        (define("VEC_IN_SMEM", 8, "float4 held in shared memory per thread"),
         define("VEC_IN_SMEM", smem, "float4 held in shared memory per thread")),
        (define("WB_AHEAD", 2, "weight/bias float4 pairs in flight"),
         define("WB_AHEAD", ahead, "weight/bias float4 pairs in flight")),
        (define("WB_EARLY", 1, "of them, issued before the reduction"),
         define("WB_EARLY", early, "of them, issued before the reduction")),
    ])

# The persistent softmax, written by hand (softmax_v4_prefetch.cu.in), its
# headers inlined.
(HERE / "softmax_v4_prefetch.cu").write_text(
    probe_gen.inline((HERE / "softmax_v4_prefetch.cu.in").read_text()))
