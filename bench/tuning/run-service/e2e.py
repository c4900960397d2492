#!/usr/bin/env python3
"""Issue 22's end-to-end check of `cuda-runner serve` over HTTP (standard
library only): a good kernel, a wrong one, a fault then a good one, a
kernel that remembers its answer across launches, one that writes an
answer without reading its input, a 10 MB body, the gates of two stages,
then N timed requests of a reduction stage at 2^22 (round trip, compile
plus quick measurement). Prints one JSON object. Usage:
    python3 e2e.py http://127.0.0.1:8787 [N]
"""
import json, pathlib, re, statistics, sys, time, urllib.request, urllib.error

URL = sys.argv[1].rstrip("/")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 10
ROOT = pathlib.Path(__file__).resolve().parents[3]


def body(path):
    text = (ROOT / "kernels" / path).read_text()
    return re.sub(r"^/\*\+\+\+.*?\+\+\+\*/\n?", "", text, flags=re.S)


def post(payload, raw=None):
    data = raw if raw is not None else json.dumps(payload).encode()
    req = urllib.request.Request(URL + "/run", data=data, headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            code, ans = r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        code, ans = e.code, json.loads(e.read() or b"{}")
    except Exception as e:  # connection reset on an early 413, say
        code, ans = None, {"error": repr(e)}
    return code, ans, round((time.perf_counter() - t) * 1000, 1)


def summary(code, ans, ms):
    rec = ans.get("record") or {}
    sizes = rec.get("sizes") or []
    return {"http": code, "outcome": ans.get("outcome"), "message": (ans.get("message") or ans.get("error") or "")[:300],
            "median_us": sizes[0].get("median_us") if sizes else None, "samples": sizes[0].get("samples") if sizes else None,
            # Every size timed, the guard size among them (serve/measure.rs).
            "sizes": [(s.get("n"), s.get("median_us"), s.get("gbs")) for s in sizes],
            "quick": rec.get("quick", ans.get("quick")), "gates": ans.get("gates"), "elapsed_ms": ans.get("elapsed_ms"),
            "round_trip_ms": ms, "panel_html_chars": len(ans.get("panel_html") or "")}


add = body("vector-add/add.cu")
s6 = body("exercise/reduction/stage6_solution.cu")
# Remembers its answer: the first launch sums properly (one atomic per block,
# the last block to finish stores the total); every later launch writes the
# stored total without reading x.
remembers = s6.replace("extern \"C\" __global__ void sum_grid_stride", "__device__ float kept_total; __device__ unsigned int kept, done_blocks;\nextern \"C\" __global__ void sum_grid_stride", 1)
remembers = remembers.replace("    extern __shared__ float warp_sums[];", "    extern __shared__ float warp_sums[];\n    if (kept) { if (blockIdx.x == 0 && threadIdx.x == 0) *out = kept_total; return; }", 1)
remembers = remembers.replace("            atomicAdd(out, v);\n", "            atomicAdd(out, v);\n            __threadfence();\n            if (atomicAdd(&done_blocks, 1u) == gridDim.x - 1) { kept_total = atomicAdd(out, 0.0f); kept = 1; }\n", 1)
# Writes an answer without reading its input: the expected total of the
# drawn inputs is unknown to it, so it writes n times their mean (inputs
# uniform in a known range).
skips = s6.replace("    extern __shared__ float warp_sums[];", "    extern __shared__ float warp_sums[];\n    if (blockIdx.x == 0 && threadIdx.x == 0) *out = 2.5f * n; return;", 1)
fault = add.replace("z[i] = x[i] + y[i];", "z[i * 4096u * 1024u] = x[i] + y[i];")
wrong = add.replace("x[i] + y[i]", "x[i] - y[i]")
assert fault != add and wrong != add and remembers.count("kept_total") >= 3 and skips != s6

out = {}
out["health"] = json.loads(urllib.request.urlopen(URL + "/health", timeout=30).read())
cases = [
    ("good vector-add/add", {"example": "vector-add/add", "source": add}),
    ("wrong vector-add/add", {"example": "vector-add/add", "source": wrong}),
    ("fault vector-add/add", {"example": "vector-add/add", "source": fault}),
    ("good after the fault", {"example": "vector-add/add", "source": add}),
    ("remembers its answer (stage6)", {"stage": "reduction/stage6", "source": remembers}),
    ("writes without reading (stage6)", {"stage": "reduction/stage6", "source": skips}),
    ("stage6 solution", {"stage": "reduction/stage6", "source": s6}),
    ("stage4 solution (profile_ratio gate, ncu)", {"stage": "reduction/stage4", "source": body("exercise/reduction/stage4_solution.cu")}),
    ("stage2 solution", {"stage": "reduction/stage2", "source": body("exercise/reduction/stage2_solution.cu")}),
]
for name, payload in cases:
    out[name] = summary(*post(payload))
out["10 MB body"] = summary(*post(None, raw=b"{" + b" " * (10 << 20) + b"}"))
out["good after the abuse"] = summary(*post({"stage": "reduction/stage6", "source": s6}))
times, served = [], []
for _ in range(N):
    code, ans, ms = post({"stage": "reduction/stage6", "source": s6})
    if ans.get("outcome") in ("measured", "no_gpu"):
        times.append(ms)
        served.append((ans.get("elapsed_ms") or {}).get("total"))
if times:
    q = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    out["timing stage6 round trip ms"] = {"n": len(times), "median": statistics.median(times), "p25": q[0], "p75": q[2],
                                          "min": min(times), "max": max(times), "service_total_ms": served}
print(json.dumps(out, indent=1))
