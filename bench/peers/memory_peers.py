#!/usr/bin/env python3
"""Peer benchmark of the memory chapters' problems: a plain copy
(`cudaMemcpyAsync` device to device and torch's `y.copy_(x)`) and torch's
transpose copy (`x.t().contiguous()`), timed with the book runner's cold
method (the Timer of python_peers.py: reset, L2 flush, blocker kernel,
events; the runner's POLICY stop rules, a 1/P share of it with
--processes P).

Usage: python3 memory_peers.py --problem transpose|elementwise
           [--sizes 4096,8192] [--seed 1] [--processes 1]
Problems and sizes (`n` in the lines is the element count, as the book's
records count it: rows * cols for the transpose):
  transpose    square float32 matrices of side 4096 and 8192 (--sizes: sides)
               impls `torch_transpose` (x.t().contiguous()), `torch_copy`
               (y.copy_(x) of the same bytes) and `cudamemcpy`
               (cudaMemcpyAsync device to device of the same bytes)
  elementwise  the copy y = x of N = 2^24, 2^26 and 2^28 floats (--sizes: log2 N)
               impls `cudamemcpy` and `torch_copy`
bytes = 8 n (each element read once and written once), gb_per_s = bytes /
median. Check: the output equals the input (the transpose: x's transpose)
element for element, after the timed samples.
Output (stdout, JSON lines): one "meta" line, then one line per (impl, n).
Progress goes to stderr.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers as pp  # noqa: E402
from python_peers import emit  # noqa: E402

PROBLEMS = {
    # problem: (default sizes, impls)
    "transpose": ("4096,8192", ("torch_transpose", "torch_copy", "cudamemcpy")),
    "elementwise": ("24,26,28", ("cudamemcpy", "torch_copy")),
}
MEMCPY_DEVICE_TO_DEVICE = 3  # cudaMemcpyKind


def shapes(problem, sizes):
    """(rows, cols) of each size: square sides for the transpose, 1 x 2^k
    for the copy (a flat array)."""
    values = [int(s) for s in sizes.split(",") if s.strip()]
    if problem == "transpose":
        return [(v, v) for v in values]
    return [(1, 1 << v) for v in values]


def bytes_moved(rows, cols):
    """Each element read once and written once."""
    return 2 * rows * cols * 4


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", required=True, choices=sorted(PROBLEMS))
    ap.add_argument("--sizes", default=None)
    args = pp.parse_args(ap)
    default_sizes, impls = PROBLEMS[args.problem]
    meta = pp.meta_line("memory_peers.py", args.processes, problem=args.problem)
    gpu = pp.open_gpu(meta, "memory_peers")
    if gpu is None:
        return 1
    _, cp, torch, timer, ext = gpu
    rt = cp.cuda.runtime
    meta.update({**pp.torch_meta(timer, cp, torch), **pp.method_meta(timer, args.seed)})
    emit(meta)
    status = 0
    with pp.on_timer_stream(timer, torch, ext):
        for rows, cols in shapes(args.problem, args.sizes or default_sizes):
            g = torch.Generator(device="cuda")
            g.manual_seed(args.seed)
            x = torch.rand((rows, cols), generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
            for impl in impls:
                try:
                    run_one(timer, torch, rt, impl, x, rows, cols)
                except Exception as ex:
                    status = 1
                    emit(pp.failed(ex, impl=impl, n=rows * cols, rows=rows, cols=cols))
            del x
            torch.cuda.empty_cache()
    return status


def run_one(timer, torch, rt, impl, x, rows, cols):
    n = rows * cols
    y = torch.empty_like(x)
    holder = [y]
    if impl == "torch_transpose":
        def work():
            holder[0] = x.t().contiguous()
    elif impl == "torch_copy":
        def work():
            y.copy_(x)
    elif impl == "cudamemcpy":
        def work():
            rt.memcpyAsync(y.data_ptr(), x.data_ptr(), n * 4, MEMCPY_DEVICE_TO_DEVICE, timer.stream.ptr)
    else:
        raise ValueError(f"unknown impl {impl}")
    s = timer.first_then_cold(work, prepare=lambda: y.fill_(float("nan")))
    want = x.t() if impl == "torch_transpose" else x
    passed = bool(torch.equal(holder[0], want))
    b = bytes_moved(rows, cols)
    emit(
        {
            "impl": impl,
            "n": n,
            "rows": rows,
            "cols": cols,
            "bytes": b,
            **pp.timing_fields(s, b),
            "pass": passed,
            "input": "torch.rand (seeded) * 2 - 1, float32",
            "times_us": s["times"],
        }
    )
    pp.progress(f"{impl:<16} {rows}x{cols}", s, passed)


if __name__ == "__main__":
    sys.exit(main())
