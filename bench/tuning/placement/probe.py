#!/usr/bin/env python3
"""Issue 20's repeatability probe: is two_pass's shift between processes the
placement of its code (one cuModuleLoad per example per process)?

In one process, the book's two_pass kernel (kernels/reductions/two_pass.cu,
header stripped) is loaded MODULES times (each load its own code address)
and, for the partials buffer, crossed with PARTIALS allocations; every
sample takes the next (module, partials) pair in turn. Each sample: the
L2 flushed by a 256 MiB memset, a 50 us spin kernel so that both timed
launches are queued on the GPU before the first starts (as the runner's
blocking kernel does), then CUDA events around the two launches. Prints one
JSON line: the median per module and per partials buffer. Run it in
several processes: if the per-module medians of one process split into the
same groups that separate processes fall into, code placement is it.

Usage (on the GPU machine, CuPy): python3 probe.py N MODULES PARTIALS SAMPLES
"""
import json, re, statistics, sys, pathlib
import cupy as cp

n, modules, partials_count, samples = (int(eval(a.replace("^", "**"))) for a in sys.argv[1:5])
root = pathlib.Path(__file__).resolve().parents[3]
src = (root / "kernels/reductions/two_pass.cu").read_text()
src = re.sub(r"/\*\+\+\+.*?\+\+\+\*/", "", src, flags=re.S)
spin_src = r'''extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64(); while (clock64() - t0 < cycles) {} }'''
spin = cp.RawModule(code=spin_src).get_function("spin")
mods = []
for m in range(modules):
    mod = cp.RawModule(code=src + f"\n// copy {m}\n", options=("-arch=sm_90",))
    mods.append((mod.get_function("partial_sums"), mod.get_function("final_sum")))
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
grid0 = min((n + 2047) // 2048, sms * 4)
x = cp.random.default_rng(1).random(n, dtype=cp.float32)
parts = [cp.zeros(grid0, cp.float32) for _ in range(partials_count)]
out = cp.zeros(1, cp.float32)
flush = cp.zeros(256 << 20, cp.uint8)
start, stop = cp.cuda.Event(), cp.cuda.Event()
times = {}
for s in range(samples * modules * partials_count + 20):
    m, p = s % modules, (s // modules) % partials_count
    k1, k2 = mods[m]
    flush.fill(s & 0xFF)
    spin((1,), (1,), (cp.int64(100_000),))
    start.record()
    k1((grid0,), (512,), (x, parts[p], cp.uint32(n)))
    k2((1,), (512,), (parts[p], out, cp.uint32(grid0)))
    stop.record()
    stop.synchronize()
    if s >= 20:
        times.setdefault((m, p), []).append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
by_module = {m: round(statistics.median([t for (mm, _), v in times.items() if mm == m for t in v]), 3) for m in range(modules)}
by_partials = {p: round(statistics.median([t for (_, pp), v in times.items() if pp == p for t in v]), 3) for p in range(partials_count)}
every = [t for v in times.values() for t in v]
print(json.dumps({"n": n, "modules": modules, "partials": partials_count, "median_us": round(statistics.median(every), 3),
                  "by_module_us": by_module, "by_partials_us": by_partials}))
