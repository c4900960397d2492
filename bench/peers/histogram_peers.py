#!/usr/bin/env python3
"""Peer benchmark of the byte histogram: `torch.bincount(x, minlength=256)`
on N uint8 values, timed with the book runner's cold method (the Timer of
python_peers.py: reset, L2 flush, events; the runner's POLICY stop rules, a
1/P share of it with --processes P), on the distributions of the book's
problems (runner/core/src/problem/histogram_u8.rs).

Usage: python3 histogram_peers.py --problem histogram_u8|histogram_u8_skewed
           [--sizes 20,24,28] [--seed 1] [--processes 1]
Problems (`n` in the lines is the byte count, as the book's records count it):
  histogram_u8         bytes uniform in [0, 256)
  histogram_u8_skewed  each byte 0 with probability 7/8, else uniform in [0, 256)
The impl is `torch_bincount`. bytes = n + 1024 (the input once, 256 four-byte
bins once: the book's count), gb_per_s = bytes / median. Check: every one of
the 256 counts equals torch.bincount's on the CPU of the same bytes.

torch.bincount sizes its output from the input's largest value, which it
reads back to the host (`self.max().item()` in ATen's
_bincount_cuda_template) before it launches the count: a synchronisation
inside the call. A call that waits for the stream can never be queued behind
the blocking kernel (the blocker would wait for the host, the host for the
blocker), so it is timed as the runner times a pageable host copy: flush,
start event, the call, stop event, synchronise. Its interval therefore holds
the maximum, the read-back, the host's launch of the count and the count:
what a caller of torch.bincount waits for.
Output (stdout, JSON lines): one "meta" line, then one line per (impl, n).
Progress goes to stderr.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers  # noqa: E402
from python_peers import emit, kernel_driver_version, median, rel_stdev, version_string  # noqa: E402

PROBLEMS = ("histogram_u8", "histogram_u8_skewed")
DEFAULT_SIZES = "20,24,28"
BINS = 256
# The share of the skewed input's bytes that are 0, as the problem's
# SKEWED_SHARE (runner/core/src/problem/histogram_u8.rs).
SKEWED_SHARE = 0.875


def sizes_of(text):
    """Byte counts from log2 sizes ("20,24,28"), ascending."""
    return sorted(1 << int(s) for s in text.split(",") if s.strip())


def bytes_moved(n):
    """The input read once and the 256 four-byte bins written once."""
    return n + 4 * BINS


def draw(torch, problem, n, seed, device="cuda"):
    """N uint8 bytes from a seeded torch generator, distributed as the
    problem's: uniform in [0, 256), or 0 with probability 7/8 and uniform in
    [0, 256) otherwise (where 0 may fall too)."""
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    x = torch.randint(0, BINS, (n,), generator=g, device=device, dtype=torch.uint8)
    if problem == "histogram_u8_skewed":
        zero = torch.rand(n, generator=g, device=device) < SKEWED_SHARE
        x.masked_fill_(zero, 0)
        del zero
    return x


def describe(problem):
    if problem == "histogram_u8_skewed":
        return "torch.randint(0, 256) uint8, each byte set to 0 where torch.rand < 0.875"
    return "torch.randint(0, 256) uint8"


class UnblockedTimer(python_peers.Timer):
    """The Timer's cold sample without the blocking kernel, for work that
    synchronises inside the call: reset, flush, start, work, stop, sync."""

    def one_cold(self, work):
        self.reset()
        self.flush_value = (self.flush_value + 1) & 0xFF
        self.rt.memsetAsync(self.flush.data.ptr, self.flush_value, self.flush_bytes, self.stream.ptr)
        self.start.record(self.stream)
        work()
        self.stop.record(self.stream)
        self.stream.synchronize()
        return self.cp.cuda.get_elapsed_time(self.start, self.stop) * 1000.0, False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", required=True, choices=PROBLEMS)
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=1)
    args = ap.parse_args()
    processes = python_peers.set_processes(args.processes)
    meta = {"impl": "meta", "source": "histogram_peers.py", "problem": args.problem,
            "python": sys.version.split()[0], "processes": processes}
    try:
        import numpy as np
        import cupy as cp
        import torch
    except Exception as e:
        meta["error"] = f"import failed: {e}"
        emit(meta)
        print(f"histogram_peers: {meta['error']}; nothing timed", file=sys.stderr)
        return 1

    device = 0  # the runner measures device 0
    cp.cuda.Device(device).use()
    rt = cp.cuda.runtime
    timer = UnblockedTimer(cp, np, device)
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
            "input": describe(args.problem),
            "method": "cold: reset, L2 flush memset, events, no blocker (bincount synchronises); runner POLICY",
        }
    )
    emit(meta)
    status = 0
    try:
        with timer.stream, torch.cuda.stream(ext):
            assert torch.cuda.current_stream().cuda_stream == timer.stream.ptr, "torch is on another stream"
            for n in sizes_of(args.sizes):
                x = draw(torch, args.problem, n, args.seed)
                want = torch.bincount(x.cpu(), minlength=BINS)
                try:
                    run_one(timer, torch, x, n, want)
                except Exception as ex:
                    status = 1
                    emit({"impl": "torch_bincount", "n": n, "failure": f"{type(ex).__name__}: {ex}"[:500],
                          "times_us": []})
                del x
                torch.cuda.empty_cache()
    finally:
        timer.close()
    return status


def run_one(timer, torch, x, n, want):
    holder = [None]

    def work():
        holder[0] = torch.bincount(x, minlength=BINS)

    # One untimed call before the warm-up: lazy module loading and the
    # first allocation from the caching pool stay out of the samples.
    work()
    timer.stream.synchronize()
    s = timer.cold(work)
    timer.stream.synchronize()
    got = holder[0].cpu()
    wrong = int((got != want).sum()) if got.shape == want.shape else BINS
    passed = wrong == 0
    times = s["times"]
    med = median(times)
    b = bytes_moved(n)
    emit(
        {
            "impl": "torch_bincount",
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
            "wrong_bins": wrong,
            "error": wrong / BINS,
            "tolerance": 0.0,
            "pass": passed,
            "times_us": times,
        }
    )
    print(
        f"  torch_bincount  n=2^{n.bit_length() - 1}  median {med:.2f} us  ({len(times)} samples"
        f"{', noisy' if s['noisy'] else ''})  {'pass' if passed else 'FAIL'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    sys.exit(main())
