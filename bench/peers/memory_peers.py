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
import python_peers  # noqa: E402
from python_peers import emit, kernel_driver_version, median, rel_stdev, version_string  # noqa: E402

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
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=1)
    args = ap.parse_args()
    processes = python_peers.set_processes(args.processes)
    default_sizes, impls = PROBLEMS[args.problem]
    meta = {"impl": "meta", "source": "memory_peers.py", "problem": args.problem,
            "python": sys.version.split()[0], "processes": processes}
    try:
        import numpy as np
        import cupy as cp
        import torch
    except Exception as e:
        meta["error"] = f"import failed: {e}"
        emit(meta)
        print(f"memory_peers: {meta['error']}; nothing timed", file=sys.stderr)
        return 1

    device = 0  # the runner measures device 0
    cp.cuda.Device(device).use()
    rt = cp.cuda.runtime
    timer = python_peers.Timer(cp, np, device)
    torch.cuda.init()
    ext = torch.cuda.ExternalStream(timer.stream.ptr)
    meta.update(
        {
            "gpu": torch.cuda.get_device_name(device),
            "l2_bytes": timer.l2_bytes,
            "default_sm_clock_mhz": timer.default_clock_mhz,
            "driver": kernel_driver_version() or f"CUDA {version_string(rt.driverGetVersion())}",
            "cuda_driver_api": version_string(rt.driverGetVersion()),
            "cuda_runtime": version_string(rt.runtimeGetVersion()),
            "cupy": cp.__version__,
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "flush_bytes": timer.flush_bytes,
            "nvml_clocks": timer.nvml.lib is not None,
            "seed": args.seed,
            "method": "cold: reset, L2 flush memset, blocker, events; runner POLICY",
        }
    )
    emit(meta)
    status = 0
    try:
        with timer.stream, torch.cuda.stream(ext):
            assert torch.cuda.current_stream().cuda_stream == timer.stream.ptr, "torch is on another stream"
            for rows, cols in shapes(args.problem, args.sizes or default_sizes):
                g = torch.Generator(device="cuda")
                g.manual_seed(args.seed)
                x = torch.rand((rows, cols), generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
                for impl in impls:
                    try:
                        run_one(timer, torch, rt, impl, x, rows, cols)
                    except Exception as ex:
                        status = 1
                        emit({"impl": impl, "n": rows * cols, "rows": rows, "cols": cols,
                              "failure": f"{type(ex).__name__}: {ex}"[:500], "times_us": []})
                del x
                torch.cuda.empty_cache()
    finally:
        timer.close()
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
    # One untimed call before the warm-up: lazy module loading and the
    # first allocation from the caching pool may wait for the device.
    work()
    timer.stream.synchronize()
    y.fill_(float("nan"))
    s = timer.cold(work)
    timer.stream.synchronize()
    want = x.t() if impl == "torch_transpose" else x
    passed = bool(torch.equal(holder[0], want))
    times = s["times"]
    med = median(times)
    b = bytes_moved(rows, cols)
    emit(
        {
            "impl": impl,
            "n": n,
            "rows": rows,
            "cols": cols,
            "bytes": b,
            "median_us": med,
            "min_us": min(times) if times else None,
            "max_us": max(times) if times else None,
            "samples": len(times),
            "rel_spread": rel_stdev(times),
            "noisy": s["noisy"],
            "throttled": s["throttled"],
            "blocker_timeouts": s["blocker_timeouts"],
            "sm_clock_mhz": s["sm_clock_mhz"],
            "gb_per_s": b / (med * 1e-6) / 1e9 if med > 0 else None,
            "pass": passed,
            "input": "torch.rand (seeded) * 2 - 1, float32",
            "times_us": times,
        }
    )
    print(
        f"  {impl:<16} {rows}x{cols}  median {med:.2f} us  ({len(times)} samples"
        f"{', noisy' if s['noisy'] else ''})  {'pass' if passed else 'FAIL'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    sys.exit(main())
