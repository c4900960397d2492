#!/usr/bin/env python3
"""Peer benchmark of the row-wise problems: torch.softmax(x, -1) and
torch.nn.functional.layer_norm over the rows of an M x N matrix, eager and
through torch.compile, timed with the book runner's cold method (the Timer
of python_peers.py: reset, L2 flush, blocker kernel, events; the runner's
POLICY stop rules, a 1/P share of it with --processes P).

Usage: python3 rows_peers.py --problem softmax_rows|layernorm_rows
           [--min-log2 10] [--max-log2 18] [--total-log2 26] [--seed 1]
           [--dtypes f32,bf16] [--impls torch,torch_compile]
           [--compile-mode default] [--processes 1]
Sizes: N = 2^min-log2, 2^(min-log2 + 2), ..., 2^max-log2 (the row length,
which is `n` in the lines, as the book's row-wise problems declare sizes),
M = 2^total-log2 / N rows.
Output (stdout, JSON lines): one "meta" line, then one line per (impl, N):
impl (`torch`, `torch_compile`, `torch_bf16`, `torch_compile_bf16`), n, rows,
dtype, bytes (x read once and y written once, plus weight and bias for
layer_norm), the timing fields of python_peers.py, gb_per_s = bytes /
median, the check (error, tolerance, pass) and, for torch.compile, how long
the first (compiling) call took. Progress goes to stderr.

torch.compile: one compiled function per shape and dtype (dynamic=False,
fullgraph=True, after torch._dynamo.reset(), so no shape falls back to eager
at the recompile limit), called once untimed before the warm-up. Inductor's
on-disk caches (TORCHINDUCTOR_CACHE_DIR, which rows.sh shares among the P
processes) make every process but the first load the compiled kernels
instead of compiling them.

The check functions and the input generators import nothing at module
level beyond python_peers (stdlib only), so the tests run without a GPU.
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers as pp  # noqa: E402
from python_peers import emit, finite_or_none, median  # noqa: E402

PROBLEMS = ("softmax_rows", "layernorm_rows")
DTYPES = ("f32", "bf16")
EPS = 1e-5
U24 = 2.0 ** -24  # float32's unit roundoff
# bf16 outputs carry one more rounding, to 8 significant bits (unit
# roundoff 2^-8), added to the float32 bound as the runner's checks do
# (runner/core/src/problem/{softmax,layernorm}_rows.rs).
BF16_EXTRA = 2.0 ** -8


# ---------------------------------------------------------------- tolerances


def softmax_tolerance(n, dtype="f32"):
    """Largest allowed relative error of one element: (8 + 4 sqrt(N)) 2^-24."""
    t = (8.0 + 4.0 * math.sqrt(n)) * U24
    return t + BF16_EXTRA if dtype == "bf16" else t


def layernorm_tolerance(n, dtype="f32"):
    """Largest allowed error_ij (see layernorm_errors_py): (16 + 4 sqrt(N)) 2^-24."""
    t = (16.0 + 4.0 * math.sqrt(n)) * U24
    return t + BF16_EXTRA if dtype == "bf16" else t


def bytes_moved(problem, rows, n, dtype):
    """x read once and y written once; layer_norm also reads weight and bias."""
    size = 4 if dtype == "f32" else 2
    b = 2 * rows * n * size
    if problem == "layernorm_rows":
        b += 2 * n * size
    return b


# --------------------------------------------- the checks, in plain Python
# (the definitions; the torch versions below compute the same in float64 on
# the GPU, and test_rows_peers.py holds the two to each other)


def softmax_errors_py(x, y):
    """Max over elements of |y - ref| / ref, ref the float64 softmax of each
    row of x (lists of lists); NaN anywhere gives inf."""
    worst = 0.0
    for xr, yr in zip(x, y):
        m = max(xr)
        e = [math.exp(v - m) for v in xr]
        s = math.fsum(e)
        for ev, yv in zip(e, yr):
            ref = ev / s
            err = abs(yv - ref) / ref
            if not math.isfinite(err):
                return math.inf
            worst = max(worst, err)
    return worst


def layernorm_errors_py(x, y, w, b, eps=EPS):
    """Max over elements of error_ij = |y - ref| / (|ref| + scale_r |w_j|),
    ref = (x - mean_r) rstd_r w_j + b_j in float64, rstd_r = 1 / sqrt(var_r
    + eps) (biased variance), scale_r = (|mean_r| + sd_r) rstd_r: the error
    measured against what rounding x (of size |mean| + sd) can cost after
    normalising. NaN anywhere gives inf."""
    worst = 0.0
    for xr, yr in zip(x, y):
        n = len(xr)
        mean = math.fsum(xr) / n
        var = math.fsum((v - mean) ** 2 for v in xr) / n
        rstd = 1.0 / math.sqrt(var + eps)
        scale = (abs(mean) + math.sqrt(var)) * rstd
        for xv, yv, wv, bv in zip(xr, yr, w, b):
            ref = (xv - mean) * rstd * wv + bv
            err = abs(yv - ref) / (abs(ref) + scale * abs(wv))
            if not math.isfinite(err):
                return math.inf
            worst = max(worst, err)
    return worst


# ----------------------------------------------------- the checks, in torch


def softmax_error(torch, x, y):
    """softmax_errors_py on tensors: float64 reference of x's values."""
    x64 = x.to(torch.float64)
    ref = torch.softmax(x64, dim=-1)
    del x64
    err = ((y.to(torch.float64) - ref).abs_() / ref).max().item()
    return err if math.isfinite(err) else math.inf


def layernorm_error(torch, x, y, w, b, eps=EPS):
    """layernorm_errors_py on tensors, in float64."""
    x64 = x.to(torch.float64)
    mean = x64.mean(dim=-1, keepdim=True)
    var = (x64 - mean).square_().mean(dim=-1, keepdim=True)
    rstd = (var + eps).rsqrt()
    scale = (mean.abs() + var.sqrt()) * rstd
    w64, b64 = w.to(torch.float64), b.to(torch.float64)
    ref = (x64 - mean) * rstd * w64 + b64
    del x64
    err = ((y.to(torch.float64) - ref).abs_() / (ref.abs() + scale * w64.abs())).max().item()
    return err if math.isfinite(err) else math.inf


# ---------------------------------------------------------------- the inputs


def input_description(problem, dtype):
    if problem == "softmax_rows":
        return "x[r][j] = c_r + u, c_r ~ U[50, 100) per row, u ~ U[-8, 8); float32, then rounded to " + (
            "bf16" if dtype == "bf16" else "float32")
    if dtype == "bf16":
        # The float32 offsets [250, 1000) would round to steps of 2 to 4 in
        # bf16, leaving rows of one or two values: the runner's bf16 offsets.
        return ("x[r][j] = c_r + u, c_r ~ U[-2, 2) per row, u ~ U[-1, 1), rounded to bf16; "
                "weight ~ U[0.5, 1.5), bias ~ U[-0.5, 0.5); eps 1e-5")
    return ("x[r][j] = c_r + u, c_r ~ U[250, 1000) per row, u ~ U[-1, 1); "
            "weight ~ U[0.5, 1.5), bias ~ U[-0.5, 0.5); eps 1e-5; float32")


def make_rows(torch, problem, dtype, rows, n, seed, device="cuda"):
    """The problem's input, drawn in float32 by torch's generator on `device`
    and rounded to `dtype`. Returns a dict: x, c (the row offsets, float32)
    and, for layernorm_rows, w and b."""
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    f32 = torch.float32
    target = torch.bfloat16 if dtype == "bf16" else f32

    def uniform(shape, lo, hi):
        return torch.rand(shape, generator=g, device=device, dtype=f32).mul_(hi - lo).add_(lo)

    if problem == "softmax_rows":
        c = uniform((rows, 1), 50.0, 100.0)
        x = uniform((rows, n), -8.0, 8.0).add_(c)
        return {"x": x.to(target), "c": c}
    lo, hi = (-2.0, 2.0) if dtype == "bf16" else (250.0, 1000.0)
    c = uniform((rows, 1), lo, hi)
    x = uniform((rows, n), -1.0, 1.0).add_(c)
    w = uniform((n,), 0.5, 1.5)
    b = uniform((n,), -0.5, 0.5)
    return {"x": x.to(target), "c": c, "w": w.to(target), "b": b.to(target)}


def op(torch, problem, n):
    """The timed operation, as a function of the input dict's tensors."""
    if problem == "softmax_rows":
        return lambda x: torch.softmax(x, -1)
    F = torch.nn.functional
    return lambda x, w, b: F.layer_norm(x, (n,), w, b, eps=EPS)


# ----------------------------------------------------------------- measuring


def inductor_counters(torch):
    try:
        from torch._dynamo.utils import counters

        c = counters["inductor"]
        return {k: int(c.get(k, 0)) for k in ("fxgraph_cache_hit", "fxgraph_cache_miss", "fxgraph_cache_bypass")}
    except Exception:
        return {}


def run_one(timer, torch, ext, problem, impl, dtype, data, n, rows, seed, compile_mode):
    args = (data["x"],) if problem == "softmax_rows" else (data["x"], data["w"], data["b"])
    eager = op(torch, problem, n)
    key = impl + ("_bf16" if dtype == "bf16" else "")
    record = {"impl": key, "problem": problem, "n": n, "rows": rows, "dtype": dtype,
              "bytes": bytes_moved(problem, rows, n, dtype)}
    holder = [None]
    with torch.cuda.stream(ext):
        assert torch.cuda.current_stream().cuda_stream == timer.stream.ptr, "torch is on another stream"
        if impl == "torch_compile":
            torch._dynamo.reset()  # one entry per compiled function: never the recompile limit
            before = inductor_counters(torch)
            kwargs = {"dynamic": False, "fullgraph": True}
            if compile_mode != "default":
                kwargs["mode"] = compile_mode
            fn = torch.compile(eager, **kwargs)
            t0 = time.monotonic()
            holder[0] = fn(*args)  # compiles (or loads from the cache) and runs, untimed
            timer.stream.synchronize()
            record["compile_s"] = time.monotonic() - t0
            after = inductor_counters(torch)
            record["inductor_cache"] = {k: after.get(k, 0) - before.get(k, 0) for k in after}
            record["compile_mode"] = compile_mode
        else:
            fn = eager

        def work():
            holder[0] = fn(*args)

        s = timer.first_then_cold(work)
        y = holder[0]
        holder[0] = None
        if problem == "softmax_rows":
            error = softmax_error(torch, data["x"], y)
            tolerance = softmax_tolerance(n, dtype)
        else:
            error = layernorm_error(torch, data["x"], y, data["w"], data["b"])
            tolerance = layernorm_tolerance(n, dtype)
        ok_shape = tuple(y.shape) == (rows, n) and y.dtype == data["x"].dtype
        del y

    times = s["times"]
    med = median(times)
    passed = ok_shape and math.isfinite(error) and error <= tolerance
    record.update(
        {
            **pp.timing_fields(s, record["bytes"]),
            "error": finite_or_none(error),
            "tolerance": tolerance,
            "pass": passed,
            "input": input_description(problem, dtype),
            "seed": seed,
            "times_us": times,
        }
    )
    emit(record)
    extra = f"  compile {record['compile_s']:.2f} s" if "compile_s" in record else ""
    print(
        f"  {key:<20} n=2^{int(round(math.log2(n)))}  median {med:.2f} us  {record['gb_per_s'] or 0:.0f} GB/s"
        f"  ({len(times)} samples{', noisy' if s['noisy'] else ''})  err {error:.3g} / {tolerance:.3g}"
        f"  {'pass' if passed else 'FAIL'}{extra}",
        file=sys.stderr,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", required=True, choices=PROBLEMS)
    ap.add_argument("--min-log2", type=int, default=10)
    ap.add_argument("--max-log2", type=int, default=18)
    ap.add_argument("--total-log2", type=int, default=26)
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--impls", default="torch,torch_compile")
    ap.add_argument("--compile-mode", default="default",
                    help="torch.compile mode (default, max-autotune-no-cudagraphs, ...)")
    args = pp.parse_args(ap)
    # This folder holds profile.py, which would shadow the standard library's
    # `profile` that torch.compile imports (through cProfile): it is on the
    # path only for python_peers and method, imported above.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    dtypes = pp.names(args.dtypes)
    impls = pp.names(args.impls)
    for d in dtypes:
        if d not in DTYPES:
            ap.error(f"unknown dtype {d} (f32, bf16)")
    for i in impls:
        if i not in ("torch", "torch_compile"):
            ap.error(f"unknown impl {i} (torch, torch_compile)")

    meta = pp.meta_line("rows_peers.py", args.processes, problem=args.problem)
    gpu = pp.open_gpu(meta, "rows_peers", error="cupy/numpy/torch import failed")
    if gpu is None:
        return 0
    np, cp, torch, timer, ext = gpu
    device = 0  # the runner measures device 0
    rt = cp.cuda.runtime
    try:
        import triton

        triton_version = triton.__version__
    except Exception:
        triton_version = None
    meta.update(
        {
            "gpu": torch.cuda.get_device_name(device),
            "compute_capability": "%d.%d" % torch.cuda.get_device_capability(device),
            "sm_count": rt.deviceGetAttribute(pp.ATTR_MULTIPROCESSOR_COUNT, device),
            "l2_bytes": timer.l2_bytes,
            "default_sm_clock_mhz": timer.default_clock_mhz,
            "driver": pp.driver_version(rt),
            "cuda_driver_api": pp.version_string(rt.driverGetVersion()),
            "cupy": cp.__version__,
            "numpy": np.__version__,
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "triton": triton_version,
            "inductor_cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
            "compile_mode": args.compile_mode,
            **pp.method_meta(timer, args.seed),
        }
    )
    emit(meta)

    status = 0
    total = 1 << args.total_log2
    try:
        with timer.stream:
            for e in range(args.min_log2, args.max_log2 + 1, 2):
                n = 1 << e
                rows = total // n
                for dtype in dtypes:
                    with torch.cuda.stream(ext):
                        data = make_rows(torch, args.problem, dtype, rows, n, args.seed + e)
                    timer.stream.synchronize()
                    for impl in impls:
                        try:
                            run_one(timer, torch, ext, args.problem, impl, dtype, data, n, rows,
                                    args.seed + e, args.compile_mode)
                        except Exception as ex:  # one peer's failure leaves the others their figures
                            status = 1
                            key = impl + ("_bf16" if dtype == "bf16" else "")
                            print(f"rows_peers: {key} n={n} failed: {type(ex).__name__}: {ex}", file=sys.stderr)
                            emit(pp.failed(ex, **{"impl": key, "problem": args.problem, "n": n, "rows": rows,
                                                  "dtype": dtype, "bytes": bytes_moved(args.problem, rows, n, dtype),
                                                  "pass": False}))
                    del data
                    torch.cuda.empty_cache()
    finally:
        timer.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
