#!/usr/bin/env python3
"""Peer benchmark of the matmul_f32 problem: cuBLAS SGEMM through
torch.mm on row-major float32 matrices, TF32 off, timed with the book
runner's cold method (the Timer of python_peers.py: reset, L2 flush,
blocker kernel, events; the runner's POLICY stop rules, a 1/P share of
it with --processes P).

Usage: python3 matmul_peers.py [--sizes 2048,4096,8192] [--seed 1] [--processes 1]
Sizes are square: M = N = K = each value (the chapter's examples' sizes).
Impl `torch_mm`: torch.mm(a, b, out=c), a of M x K, b of K x N, c of
M x N, all contiguous (row-major), as the problem's buffers are, with
torch.backends.cuda.matmul.allow_tf32 = False,
torch.backends.cudnn.allow_tf32 = False and
torch.set_float32_matmul_precision("highest"): every product in float32,
as the book's kernels compute it (the meta line records the settings).
`n` in the lines is M N K, the number the book's matmul_f32 records key a
size by; `bytes` = 4 (MK + KN + MN), `flop` = 2 M N K, `tflops` =
flop / median.
Check, as the runner's (runner/core/src/problem/matmul_f32.rs): inputs
uniform in [-1, 1); the sampled rows and columns of C (every 31st from
index 3), each element's |c - ref| / sum_k |a_ik| |b_kj| against the
float64 product, held to (4 sqrt(K) + 8) 2^-24: a product rounded to TF32
fails it.
Output (stdout, JSON lines): one "meta" line, then one line per (impl, n).
Progress goes to stderr.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers as pp  # noqa: E402
from python_peers import emit  # noqa: E402

DEFAULT_SIZES = "2048,4096,8192"
IMPLS = ("torch_mm",)
# The problem's sampling of rows and columns (matmul_f32.rs: BAND, STRIDE).
BAND = 32
STRIDE = BAND - 1
UNIT_ROUNDOFF = 2.0**-24


def shapes(sizes):
    """(M, N, K) of each size: square, each dimension the value."""
    return [(v, v, v) for v in (int(s) for s in sizes.split(",") if s.strip())]


def sampled(count):
    """The sampled rows (or columns) of `count`: 3, 3 + 31, ... below
    count, or the last index alone when count is 3 or less."""
    every = list(range(3, count, STRIDE))
    return every if every else [max(count - 1, 0)]


def tolerance(k):
    """The problem's bound on an element's error over its scale."""
    return (4.0 * math.sqrt(k) + 8.0) * UNIT_ROUNDOFF


def bytes_of(m, n, k):
    """The bytes the three matrices hold, as the problem counts them."""
    return 4 * (m * k + k * n + m * n)


def flop_of(m, n, k):
    """One multiply and one add per term."""
    return 2 * m * n * k


def worst_error(torch, a, b, c):
    """The largest error over scale of C's sampled rows and columns
    against float64 products (NaN when any sampled element is NaN)."""
    m, k = a.shape
    n = b.shape[1]
    rows = torch.tensor(sampled(m), device=a.device)
    cols = torch.tensor(sampled(n), device=a.device)
    a64, b64 = a.double(), b.double()
    worst = 0.0
    for got, ref, scale in (
        (c[rows].double(), a64[rows] @ b64, a64[rows].abs() @ b64.abs()),
        (c[:, cols].double(), a64 @ b64[:, cols], a64.abs() @ b64[:, cols].abs()),
    ):
        err = (got - ref).abs() / scale.clamp_min(torch.finfo(torch.float64).tiny)
        if bool(torch.isnan(err).any()):
            return float("nan")
        worst = max(worst, float(err.max()))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    args = pp.parse_args(ap)
    meta = pp.meta_line("matmul_peers.py", args.processes, problem="matmul_f32")
    gpu = pp.open_gpu(meta, "matmul_peers")
    if gpu is None:
        return 1
    _, cp, torch, timer, ext = gpu
    # Every product in float32: no TF32 in cuBLAS (nor in cuDNN, which
    # torch.mm does not use; off so that nothing else in the process does).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    # A first, small product loads cuBLAS, whose version the meta line names.
    torch.mm(torch.ones((8, 8), device="cuda"), torch.ones((8, 8), device="cuda"))
    torch.cuda.synchronize()
    meta.update(
        {
            **pp.torch_meta(timer, cp, torch),
            "cublas": cublas_version(torch),
            "allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
            "float32_matmul_precision": torch.get_float32_matmul_precision(),
            **pp.method_meta(timer, args.seed),
        }
    )
    emit(meta)
    status = 0
    with pp.on_timer_stream(timer, torch, ext):
        for m, n, k in shapes(args.sizes):
            g = torch.Generator(device="cuda")
            g.manual_seed(args.seed)
            a = torch.rand((m, k), generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
            b = torch.rand((k, n), generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
            for impl in IMPLS:
                try:
                    run_one(timer, torch, impl, a, b)
                except Exception as ex:
                    status = 1
                    emit(pp.failed(ex, impl=impl, n=m * n * k, dims={"M": m, "N": n, "K": k}))
            del a, b
            torch.cuda.empty_cache()
    return status


def cublas_version(torch):
    """cuBLAS's version ("13.1.0") as the process loaded it for torch, or
    None. Call after a first torch.mm, which loads the library."""
    import ctypes

    try:
        lib = ctypes.CDLL("libcublas.so.13")  # the loaded one, found by its soname
    except OSError:
        return None
    parts = []
    for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        out = ctypes.c_int()
        if lib.cublasGetProperty(prop, ctypes.byref(out)) != 0:
            return None
        parts.append(str(out.value))
    return ".".join(parts)


def run_one(timer, torch, impl, a, b):
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), device=a.device, dtype=torch.float32)
    if impl == "torch_mm":
        def work():
            torch.mm(a, b, out=c)
    else:
        raise ValueError(f"unknown impl {impl}")
    # The untimed first call makes cuBLAS's handle, workspace and kernel choice.
    s = timer.first_then_cold(work, prepare=lambda: c.fill_(float("nan")))
    error = worst_error(torch, a, b, c)
    tol = tolerance(k)
    passed = error <= tol  # False for NaN
    times = s["times"]
    med = pp.median(times)
    flop = flop_of(m, n, k)
    b_ = bytes_of(m, n, k)
    emit(
        {
            "impl": impl,
            "n": m * n * k,
            "dims": {"M": m, "N": n, "K": k},
            "bytes": b_,
            "flop": flop,
            **pp.timing_fields(s, b_),
            "tflops": flop / (med * 1e-6) / 1e12 if med > 0 else None,
            "error": error if math.isfinite(error) else None,
            "tolerance": tol,
            "pass": passed,
            "input": "torch.rand (seeded) * 2 - 1, float32; a then b from one generator",
            "times_us": times,
        }
    )
    print(
        f"  {impl:<10} {m}x{n}x{k}  median {med:.1f} us  {flop / (med * 1e-6) / 1e12 if med > 0 else 0:.2f} TFLOP/s"
        f"  ({len(times)} samples{', noisy' if s['noisy'] else ''})  error {error:.3g} of {tol:.3g}"
        f"  {'pass' if passed else 'FAIL'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    sys.exit(main())
