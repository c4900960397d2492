#!/usr/bin/env python3
"""Peer benchmark of the scan_f32 problem (the inclusive prefix sum of N
float32 values): torch.cumsum and cupy.cumsum, timed with the book
runner's cold method (the Timer of python_peers.py: L2 flush, blocker
kernel, events; the runner's POLICY stop rules, a 1/P share of it with
--processes P).

Usage: python3 scan_peers.py [--min-log2 24] [--max-log2 30] [--seed 1]
           [--impls torch,cupy] [--processes 1]
Impls:
  torch  torch.cumsum(x, 0, out=y) on a float32 CUDA tensor
  cupy   cupy.cumsum(x, out=y) on a float32 array (CuPy's accelerators, in
         the meta line, decide whether CUB does the scan)
N = 2^min, 2^(min + 2), ..., 2^max. bytes = 8 N (x read once, y written
once), gb_per_s = bytes / median. Check, as the runner's scan_f32 check at
its timed sizes: every element |y[i] - ref[i]| / s[i] <= 4 sqrt(N) 2^-24,
ref the float64 prefix sums of x and s those of |x|, on an output filled
with NaN before the samples (a NaN never passes).
Output (stdout, JSON lines): one "meta" line, then one line per (impl, N).
Progress goes to stderr.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers as pp  # noqa: E402
from python_peers import emit  # noqa: E402

IMPLS = ("torch", "cupy")


def sizes(min_log2, max_log2):
    """The element counts timed: every second power of two, as cub_scan.cu."""
    return [1 << e for e in range(min_log2, max_log2 + 1, 2)]


def bytes_moved(n):
    """x read once and y written once: the problem's 8 N."""
    return 8 * n


def tolerance(n):
    """The runner's scan_f32 tolerance at a timed size."""
    return 4.0 * math.sqrt(n) * 2.0**-24


def scan_error(torch, x, y):
    """The worst |y - ref| / s over the elements, ref and s the float64
    prefix sums of x and |x|; NaN (a NaN in y) counts as infinitely wrong."""
    ref = torch.cumsum(x.double(), 0)
    err = (y.double() - ref).abs_()
    del ref
    s = torch.cumsum(x.abs().double(), 0).clamp_min_(1e-300)
    err.div_(s)
    del s
    if bool(torch.isnan(err).any()):
        return math.inf
    return float(err.max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-log2", type=int, default=24)
    ap.add_argument("--max-log2", type=int, default=30)
    ap.add_argument("--impls", default=",".join(IMPLS))
    args = pp.parse_args(ap)
    wanted = pp.names(args.impls)
    meta = pp.meta_line("scan_peers.py", args.processes, problem="scan_f32")
    gpu = pp.open_gpu(meta, "scan_peers")
    if gpu is None:
        return 1
    _, cp, torch, timer, ext = gpu
    meta.update({**pp.torch_meta(timer, cp, torch), **pp.method_meta(timer, args.seed)})
    try:
        from cupy._core import _accelerator

        meta["cupy_routine_accelerators"] = [str(a) for a in _accelerator.get_routine_accelerators()]
    except Exception:
        pass
    emit(meta)
    status = 0
    with pp.on_timer_stream(timer, torch, ext):
        for n in sizes(args.min_log2, args.max_log2):
            g = torch.Generator(device="cuda")
            g.manual_seed(args.seed)
            x = torch.rand(n, generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
            for impl in (i for i in IMPLS if i in wanted):
                try:
                    run_one(timer, torch, cp, impl, x, n)
                except Exception as ex:
                    status = 1
                    emit(pp.failed(ex, impl=impl, n=n, bytes=bytes_moved(n)))
            del x
            cp.get_default_memory_pool().free_all_blocks()
            torch.cuda.empty_cache()
    return status


def run_one(timer, torch, cp, impl, x, n):
    y = torch.empty_like(x)
    if impl == "torch":
        def work():
            torch.cumsum(x, 0, out=y)
    elif impl == "cupy":
        x_c, y_c = cp.from_dlpack(x), cp.from_dlpack(y)  # the same memory, no copy
        assert x_c.data.ptr == x.data_ptr() and y_c.data.ptr == y.data_ptr(), "cupy made a copy"

        def work():
            cp.cumsum(x_c, out=y_c)
    else:
        raise ValueError(f"unknown impl {impl}")
    s = timer.first_then_cold(work, prepare=lambda: y.fill_(float("nan")))
    error = scan_error(torch, x, y)
    tol = tolerance(n)
    b = bytes_moved(n)
    passed = error <= tol
    emit(
        {
            "impl": impl,
            "n": n,
            "bytes": b,
            **pp.timing_fields(s, b),
            "error": error if math.isfinite(error) else None,
            "tolerance": tol,
            "pass": passed,
            "input": "torch.rand (seeded) * 2 - 1, float32",
            "times_us": s["times"],
        }
    )
    pp.progress(f"{impl:<8} n=2^{int(round(math.log2(n)))}", s, passed)


if __name__ == "__main__":
    sys.exit(main())
