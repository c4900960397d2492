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
import python_peers as pp  # noqa: E402
from python_peers import emit  # noqa: E402

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


class UnblockedTimer(pp.Timer):
    """The Timer's cold sample without the blocking kernel, for work that
    synchronises inside the call: reset, flush, start, work, stop, sync."""

    def one_cold(self, work):
        self.reset()
        return self.one_unblocked(work)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", required=True, choices=PROBLEMS)
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    args = pp.parse_args(ap)
    meta = pp.meta_line("histogram_peers.py", args.processes, problem=args.problem)
    gpu = pp.open_gpu(meta, "histogram_peers", timer_class=UnblockedTimer)
    if gpu is None:
        return 1
    _, cp, torch, timer, ext = gpu
    meta.update({
        **pp.torch_meta(timer, cp, torch),
        **pp.method_meta(timer, args.seed, input=describe(args.problem),
                         method="cold: reset, L2 flush memset, events, no blocker (bincount synchronises); runner POLICY"),
    })
    emit(meta)
    status = 0
    with pp.on_timer_stream(timer, torch, ext):
        for n in sizes_of(args.sizes):
            x = draw(torch, args.problem, n, args.seed)
            want = torch.bincount(x.cpu(), minlength=BINS)
            try:
                run_one(timer, torch, x, n, want)
            except Exception as ex:
                status = 1
                emit(pp.failed(ex, impl="torch_bincount", n=n))
            del x
            torch.cuda.empty_cache()
    return status


def run_one(timer, torch, x, n, want):
    holder = [None]

    def work():
        holder[0] = torch.bincount(x, minlength=BINS)

    s = timer.first_then_cold(work)
    got = holder[0].cpu()
    wrong = int((got != want).sum()) if got.shape == want.shape else BINS
    passed = wrong == 0
    b = bytes_moved(n)
    emit(
        {
            "impl": "torch_bincount",
            "n": n,
            "bytes": b,
            **pp.timing_fields(s, b),
            "wrong_bins": wrong,
            "error": wrong / BINS,
            "tolerance": 0.0,
            "pass": passed,
            "times_us": s["times"],
        }
    )
    pp.progress(f"torch_bincount  n=2^{n.bit_length() - 1}", s, passed)


if __name__ == "__main__":
    sys.exit(main())
