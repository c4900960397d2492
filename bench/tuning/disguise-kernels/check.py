"""Correctness and timing of kernels/disguise/*.cu on the GPU (tuning, not the book).

For every kernel file: compile with CuPy's NVRTC, launch from the header's
[[launch]] table, check against a float64 torch reference at the edge
shapes and at the declared sizes (rows = 2^26 / n), and time it (median of
20 event-timed runs after a warm-up) next to torch eager, torch.compile, a
device memcpy and a float4 copy kernel moving the same bytes.

  python3 check.py [--no-compile] [--only SUBSTR] [--out DIR]
"""
import glob, json, math, os, re, statistics, sys, time, tomllib

import cupy as cp
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.abspath(os.path.join(HERE, "..", "..", "..", "kernels", "disguise"))
OUT = os.environ.get("OUT", HERE)
ARGS = sys.argv[1:]
NO_COMPILE = "--no-compile" in ARGS
ONLY = ARGS[ARGS.index("--only") + 1] if "--only" in ARGS else ""
TOTAL = 1 << 26
EDGE = [(3, 1), (5, 31), (7, 1000), (2, 4099), (1000, 33), (1, 1), (3, 8), (2, 1024)]
REPS = 20
EPS = 1e-5
SMS = torch.cuda.get_device_properties(0).multi_processor_count
T0 = time.time()

# Tuning variants: (label, file, [(old, new), ...]) applied to the source text.
VARIANTS = [
    ("softmax_cached_block[vec4]", "softmax_cached_block.cu",
     [("#define VEC_PER_THREAD 8", "#define VEC_PER_THREAD 4"),
      ("32 * ceil_div(cols, 1024)", "32 * ceil_div(cols, 512)")]),
    ("layernorm_cached_block[vec4]", "layernorm_cached_block.cu",
     [("#define VEC_PER_THREAD 8", "#define VEC_PER_THREAD 4"),
      ("32 * ceil_div(cols, 1024)", "32 * ceil_div(cols, 512)")]),
]

COPY_SRC = r"""
extern "C" __global__ void copy_f4(const float4* __restrict__ a, float4* __restrict__ b, unsigned int n4) {
    unsigned int base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) { unsigned int i = base + k * blockDim.x; if (i < n4) v[k] = a[i]; }
#pragma unroll
    for (int k = 0; k < 4; ++k) { unsigned int i = base + k * blockDim.x; if (i < n4) b[i] = v[k]; }
}
"""


def log(*a):
    print(*a, flush=True)


def parse_header(src):
    m = re.search(r"/\*\+\+\+\n(.*?)\n\+\+\+\*/", src, re.S)
    return tomllib.loads(m.group(1))


def ev(expr, env):
    if isinstance(expr, int):
        return expr
    fns = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max,
           "pow2_floor": lambda a: 1 << (a.bit_length() - 1)}
    return int(eval(str(expr).replace("/", "//"), {"__builtins__": {}}, {**fns, **env}))


def size_of(s):
    if isinstance(s, int):
        return s
    b, e = s.split("^")
    return int(b) ** int(e)


class Example:
    def __init__(self, label, path, subs=()):
        src = open(path).read()
        for old, new in subs:
            assert old in src, (label, old)
            src = src.replace(old, new)
        self.label, self.src = label, src
        self.h = parse_header(src)
        self.problem, self.dtype = self.h["problem"], self.h.get("dtype", "f32")
        self.expect = self.h.get("expect", "pass")
        self.sizes = [size_of(s) for s in self.h["sizes"]]
        opts = ("-std=c++17", "-default-device", "-lineinfo")
        self.fns = [cp.RawKernel(src, l["kernel"], options=opts) for l in self.h["launch"]]
        self.info = [(f.num_regs, f.local_size_bytes) for f in self.fns]

    def launch(self, bufs, rows, cols):
        env = {"n": cols, "rows": rows, "cols": cols, "sms": SMS}
        for k, (l, fn) in enumerate(zip(self.h["launch"], self.fns)):
            grid, block = ev(l["grid"], env), ev(l["block"], env)
            env[f"grid{k}"], env[f"block{k}"] = grid, block
            shared = ev(l.get("shared", 0), env)
            if shared > 48 * 1024 and fn.max_dynamic_shared_size_bytes < shared:
                fn.max_dynamic_shared_size_bytes = shared
            args = []
            for a in l["args"]:
                if a in bufs:
                    args.append(np.uint64(bufs[a].data_ptr()))
                elif a == "eps":
                    args.append(np.float32(EPS))
                else:
                    args.append(np.uint32(env[a]))
            fn((grid,), (block,), tuple(args), shared_mem=shared)


def tdtype(d):
    return torch.bfloat16 if d == "bf16" else torch.float32


def make_data(problem, dtype, rows, cols, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    if problem == "softmax_rows":
        c = torch.rand(rows, 1, device=dev, generator=g, dtype=torch.float64) * 50 + 50
        u = torch.rand(rows, cols, device=dev, generator=g, dtype=torch.float64) * 16 - 8
        x = (c + u).to(tdtype(dtype))
        del c, u
        return {"x": x}
    lo, hi = (250, 1000) if dtype == "f32" else (-2, 2)
    c = torch.rand(rows, 1, device=dev, generator=g, dtype=torch.float64) * (hi - lo) + lo
    u = torch.rand(rows, cols, device=dev, generator=g, dtype=torch.float64) * 2 - 1
    x = (c + u).to(tdtype(dtype))
    del c, u
    w = (torch.rand(cols, device=dev, generator=g, dtype=torch.float64) + 0.5).to(tdtype(dtype))
    b = (torch.rand(cols, device=dev, generator=g, dtype=torch.float64) - 0.5).to(tdtype(dtype))
    return {"x": x, "weight": w, "bias": b}


def max_error(problem, dtype, data, y):
    """Largest error / tolerance ratio (<= 1 passes), and NaN count."""
    cols = data["x"].shape[1]
    bf = 2.0 ** -8 if dtype == "bf16" else 0.0
    yd = y.double()
    bad = (~torch.isfinite(yd)).sum().item()
    xd = data["x"].double()
    if problem == "softmax_rows":
        ref = torch.softmax(xd, dim=-1)
        err = ((yd - ref).abs() / ref).nan_to_num(nan=float("inf")).max().item()
        tol = (8 + 4 * math.sqrt(cols)) * 2.0 ** -24 + bf
    else:
        mean = xd.mean(-1, keepdim=True)
        var = ((xd - mean) ** 2).mean(-1, keepdim=True)
        rstd = 1.0 / torch.sqrt(var + EPS)
        wd, bd = data["weight"].double(), data["bias"].double()
        ref = (xd - mean) * rstd * wd + bd
        scale = (mean.abs() + var.sqrt()) * rstd
        err = ((yd - ref).abs() / (ref.abs() + scale * wd.abs())).nan_to_num(nan=float("inf")).max().item()
        tol = (16 + 4 * math.sqrt(cols)) * 2.0 ** -24 + bf
    return err / tol, bad


def time_fn(fn, reps=REPS):
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    return statistics.median(ts)


results = []  # dicts, also appended to results.jsonl


def record(**r):
    results.append(r)
    with open(os.path.join(OUT, "results.jsonl"), "a") as f:
        f.write(json.dumps(r) + "\n")


def run_checked(ex, rows, cols, data):
    y = torch.full((rows, cols), float("nan"), device="cuda", dtype=tdtype(ex.dtype))
    bufs = dict(data, y=y)
    ex.launch(bufs, rows, cols)
    torch.cuda.synchronize()
    return bufs, y


def main():
    files = sorted(glob.glob(os.path.join(KDIR, "*.cu")))
    examples = []
    for f in files:
        label = os.path.basename(f)[:-3]
        if ONLY and ONLY not in label:
            continue
        try:
            examples.append(Example(label, f))
        except Exception as e:
            log(f"COMPILE FAIL {label}: {e}")
    for label, f, subs in VARIANTS:
        if ONLY and ONLY not in label:
            continue
        try:
            examples.append(Example(label, os.path.join(KDIR, f), subs))
        except Exception as e:
            log(f"COMPILE FAIL {label}: {e}")
    for ex in examples:
        log(f"{ex.label:34s} regs/spill {ex.info}  sizes {ex.sizes}  expect {ex.expect}")
    log(f"compiled in {time.time() - T0:.1f}s")

    # Edge shapes: correctness only.
    for ex in examples:
        worst, fails = 0.0, []
        for rows, cols in EDGE:
            try:
                data = make_data(ex.problem, ex.dtype, rows, cols, rows * 7919 + cols)
                _, y = run_checked(ex, rows, cols, data)
                r, bad = max_error(ex.problem, ex.dtype, data, y)
                worst = max(worst, r)
                if r > 1 or bad:
                    fails.append(f"{rows}x{cols}:{r:.3g}/nan{bad}")
            except Exception as e:
                fails.append(f"{rows}x{cols}:EXC {str(e)[:80]}")
                torch.cuda.synchronize()
        ok = not fails
        log(f"EDGE {ex.label:34s} {'ok' if ok else 'FAIL'} worst err/tol {worst:.3g} {' '.join(fails)[:300]}")
        record(kind="edge", label=ex.label, ok=ok, worst=worst, fails=fails)
    log(f"edges done at {time.time() - T0:.1f}s")

    groups = {}
    for ex in examples:
        groups.setdefault((ex.problem, ex.dtype), []).append(ex)
    copy_f4 = cp.RawKernel(COPY_SRC, "copy_f4", options=("-std=c++17",))
    order = [("softmax_rows", "f32"), ("layernorm_rows", "f32"), ("softmax_rows", "bf16"), ("layernorm_rows", "bf16")]
    for (problem, dtype) in [k for k in order if k in groups]:
        exs = groups[(problem, dtype)]
        sizes = sorted({s for ex in exs for s in ex.sizes})
        for cols in sizes:
            rows = TOTAL // cols
            data = make_data(problem, dtype, rows, cols, cols)
            esize = 2 if dtype == "bf16" else 4
            nbytes = 2 * rows * cols * esize
            for ex in exs:
                if cols not in ex.sizes:
                    continue
                try:
                    bufs, y = run_checked(ex, rows, cols, data)
                    r, bad = max_error(problem, dtype, data, y)
                    us = time_fn(lambda: ex.launch(bufs, rows, cols))
                    status = "ok" if (r <= 1 and not bad) else "WRONG"
                except Exception as e:
                    status, r, bad, us = f"EXC {str(e)[:60]}", float("nan"), -1, float("nan")
                    torch.cuda.synchronize()
                log(f"{problem} {dtype} n=2^{int(math.log2(cols))} {ex.label:34s} {us:8.1f} us {nbytes / us / 1e3:7.0f} GB/s err/tol {r:.3g} nan {bad} {status}")
                record(kind="kernel", problem=problem, dtype=dtype, cols=cols, label=ex.label, us=us,
                       gbps=nbytes / us / 1e3, err=r, nan=bad, status=status, expect=ex.expect)
                del y
            # Peers on the same data.
            x = data["x"]
            peers = {}
            if problem == "softmax_rows":
                eager = lambda t: torch.softmax(t, dim=-1)
            else:
                w, b = data["weight"], data["bias"]
                eager = lambda t: F.layer_norm(t, (cols,), w, b, EPS)
            peers["torch eager"] = lambda: eager(x)
            if not NO_COMPILE:
                try:
                    t1 = time.time()
                    comp = torch.compile(eager, dynamic=False)
                    comp(x)
                    torch.cuda.synchronize()
                    log(f"  torch.compile took {time.time() - t1:.1f}s")
                    peers["torch.compile"] = lambda: comp(x)
                except Exception as e:
                    log(f"  torch.compile failed: {e}")
            yc = torch.empty_like(x)
            peers["memcpy"] = lambda: yc.copy_(x)
            n4 = x.numel() * esize // 16
            peers["copy kernel"] = lambda: copy_f4((-(-n4 // 1024),), (256,),
                                                   (np.uint64(x.data_ptr()), np.uint64(yc.data_ptr()), np.uint32(n4)))
            for name, fn in peers.items():
                if name in ("torch eager", "torch.compile"):
                    out = fn()
                    r, bad = max_error(problem, dtype, data, out)
                    del out
                else:
                    r, bad = 0.0, 0
                us = time_fn(fn)
                log(f"{problem} {dtype} n=2^{int(math.log2(cols))} {'[' + name + ']':34s} {us:8.1f} us {nbytes / us / 1e3:7.0f} GB/s err/tol {r:.3g}")
                record(kind="peer", problem=problem, dtype=dtype, cols=cols, label=name, us=us,
                       gbps=nbytes / us / 1e3, err=r, nan=bad)
            del data, x, yc
            torch.cuda.empty_cache()
        log(f"group {problem} {dtype} done at {time.time() - T0:.1f}s")

    # Summary table.
    log("\n=== summary: GB/s (read x + write y); vs compile = torch.compile us / ours us; vs copy = ours GB/s / best copy GB/s")
    keyed = {}
    for r in results:
        if r["kind"] in ("kernel", "peer"):
            keyed.setdefault((r["problem"], r["dtype"], r["cols"]), []).append(r)
    for (problem, dtype, cols), rs in keyed.items():
        peer = {r["label"]: r for r in rs if r["kind"] == "peer"}
        copy_gbps = max(peer.get("memcpy", {}).get("gbps", 0), peer.get("copy kernel", {}).get("gbps", 0))
        tc = peer.get("torch.compile", {}).get("us")
        ours = [r for r in rs if r["kind"] == "kernel" and r["status"] == "ok"]
        best = min(ours, key=lambda r: r["us"]) if ours else None
        for r in sorted(rs, key=lambda r: r["us"] if r["us"] == r["us"] else 1e9):
            vs_tc = f"{tc / r['us']:.2f}x" if tc else "-"
            mark = " <= best" if best is r else ""
            st = r.get("status", "")
            log(f"{problem:15s} {dtype:4s} 2^{int(math.log2(cols)):<2d} {r['label']:34s} {r['us']:8.1f} us {r['gbps']:6.0f} GB/s "
                f"{100 * r['gbps'] / copy_gbps:5.1f}% copy  vs compile {vs_tc:>6s} {st}{mark}")
    log(f"total {time.time() - T0:.1f}s")


if __name__ == "__main__":
    main()
