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
import python_peers  # noqa: E402
from python_peers import emit, kernel_driver_version, median, rel_stdev, version_string  # noqa: E402

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
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--impls", default=",".join(IMPLS))
    ap.add_argument("--processes", type=int, default=1)
    args = ap.parse_args()
    processes = python_peers.set_processes(args.processes)
    wanted = [s.strip() for s in args.impls.split(",") if s.strip()]
    meta = {"impl": "meta", "source": "scan_peers.py", "problem": "scan_f32",
            "python": sys.version.split()[0], "processes": processes}
    try:
        import numpy as np
        import cupy as cp
        import torch
    except Exception as e:
        meta["error"] = f"import failed: {e}"
        emit(meta)
        print(f"scan_peers: {meta['error']}; nothing timed", file=sys.stderr)
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
    try:
        from cupy._core import _accelerator

        meta["cupy_routine_accelerators"] = [str(a) for a in _accelerator.get_routine_accelerators()]
    except Exception:
        pass
    emit(meta)
    status = 0
    try:
        with timer.stream, torch.cuda.stream(ext):
            assert torch.cuda.current_stream().cuda_stream == timer.stream.ptr, "torch is on another stream"
            for n in sizes(args.min_log2, args.max_log2):
                g = torch.Generator(device="cuda")
                g.manual_seed(args.seed)
                x = torch.rand(n, generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
                for impl in (i for i in IMPLS if i in wanted):
                    try:
                        run_one(timer, torch, cp, impl, x, n)
                    except Exception as ex:
                        status = 1
                        emit({"impl": impl, "n": n, "bytes": bytes_moved(n),
                              "failure": f"{type(ex).__name__}: {ex}"[:500], "times_us": []})
                del x
                cp.get_default_memory_pool().free_all_blocks()
                torch.cuda.empty_cache()
    finally:
        timer.close()
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
    # One untimed call before the warm-up: lazy module loading and the
    # first allocation from a caching pool may wait for the device.
    work()
    timer.stream.synchronize()
    y.fill_(float("nan"))
    s = timer.cold(work)
    timer.stream.synchronize()
    error = scan_error(torch, x, y)
    tol = tolerance(n)
    times = s["times"]
    med = median(times)
    b = bytes_moved(n)
    passed = error <= tol
    emit(
        {
            "impl": impl,
            "n": n,
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
            "error": error if math.isfinite(error) else None,
            "tolerance": tol,
            "pass": passed,
            "input": "torch.rand (seeded) * 2 - 1, float32",
            "times_us": times,
        }
    )
    print(
        f"  {impl:<8} n=2^{int(round(math.log2(n)))}  median {med:.2f} us  ({len(times)} samples"
        f"{', noisy' if s['noisy'] else ''})  {'pass' if passed else 'FAIL'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    sys.exit(main())
