#!/usr/bin/env python3
"""Peer benchmark: host-device copies by cudaMemcpyAsync and by torch, from
(or into) pinned and pageable host memory, timed as the runner times its
`transfer` examples (runner/src/transfer.rs).

Usage: python3 transfer_peers.py --direction h2d|d2h
           [--sizes 4096,1048576,67108864,1073741824] [--seed 1] [--processes 1]
Output (stdout, JSON lines): one "meta" line, then one line per (impl, size),
`n` and `bytes` the size in bytes (as the runner's transfer records have it).
Progress goes to stderr.

| impl | what is timed |
|---|---|
| `cuda_pinned` | `cudaMemcpyAsync` between a `cudaHostAlloc` buffer and a device buffer |
| `cuda_pageable` | `cudaMemcpyAsync` between a NumPy array (ordinary pageable memory) and a device buffer |
| `torch_pinned` | `dst.copy_(src, non_blocking=True)`, the host tensor made with `pin_memory=True` |
| `torch_pageable` | `dst.copy_(src)`, the host tensor a NumPy array's memory (`torch.from_numpy`) |

Method, as the runner's: the destination is poisoned (0xff) before every
sample, outside the timed interval; then the L2 is flushed; a copy from or to
pinned memory is queued behind the blocking kernel between two events (the
Timer of python_peers.py); a copy from or to pageable memory is not blocked
(the driver may wait on the stream inside the call, and torch's pageable copy
synchronises the stream), so its interval holds the host's part of the copy,
as the runner's does. Every byte of the destination is checked after the
last timed copy. All work is queued on the Timer's one stream (torch joins it
through torch.cuda.ExternalStream).
"""

import argparse
import ctypes
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_peers as pp  # noqa: E402
from python_peers import Timer, emit  # noqa: E402

IMPLS = ["cuda_pinned", "cuda_pageable", "torch_pinned", "torch_pageable"]
SIZES = [4 << 10, 1 << 20, 64 << 20, 1 << 30]
# cudaMemcpyKind
HOST_TO_DEVICE = 1
DEVICE_TO_HOST = 2


class TransferTimer(Timer):
    """The runner's transfer sampling: the destination poisoned before each
    sample, then blocked (pinned) or not (pageable)."""

    def __init__(self, cp, np, device=0):
        super().__init__(cp, np, device)
        self.poison = lambda: None
        self.blocked = True

    def one_cold(self, work):
        self.poison()
        if self.blocked:
            return super().one_cold(work)
        return self.one_unblocked(work)


def size_text(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--direction", choices=["h2d", "d2h"], required=True)
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    ap.add_argument("--impls", default=",".join(IMPLS))
    args = pp.parse_args(ap)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    wanted = pp.names(args.impls)
    meta = pp.meta_line("transfer_peers.py", args.processes, direction=args.direction)
    gpu = pp.open_gpu(meta, "transfer_peers", error="cupy/numpy import failed", timer_class=TransferTimer,
                      with_torch="optional")
    if gpu is None:
        return 0
    np, cp, torch, timer, ext = gpu
    device = 0
    rt = cp.cuda.runtime
    meta.update(
        {
            "gpu": torch.cuda.get_device_name(device) if torch is not None else "unknown",
            "driver": pp.driver_version(rt),
            "cuda_driver_api": pp.version_string(rt.driverGetVersion()),
            "cuda_runtime": pp.version_string(rt.runtimeGetVersion()),
            "cupy": cp.__version__,
            "numpy": np.__version__,
            "torch": torch.__version__ if torch is not None else None,
            "torch_cuda": torch.version.cuda if torch is not None else None,
            "flush_bytes": timer.flush_bytes,
            "method": "runner transfer: destination poisoned, L2 flush, blocker for pinned only, events; runner POLICY",
        }
    )
    emit(meta)
    impls = [i for i in IMPLS if i in wanted and (torch is not None or not i.startswith("torch"))]
    h2d = args.direction == "h2d"
    try:
        for n in sizes:
            source = np.random.default_rng(args.seed + n).integers(0, 256, n, dtype=np.uint8)
            dev = cp.empty(n, dtype=cp.uint8)
            if not h2d:
                dev.set(source)
            for impl in impls:
                run_one(timer, torch, ext, cp, np, rt, impl, h2d, n, source, dev)
            del dev
            cp.get_default_memory_pool().free_all_blocks()
            if torch is not None:
                torch.cuda.empty_cache()
    finally:
        timer.close()
    return 0


def host_buffer(torch, cp, np, rt, impl, n):
    """The host end of the copy: (NumPy view, torch tensor or None, keep-alive)."""
    pinned = impl.endswith("_pinned")
    if impl.startswith("torch"):
        t = torch.empty(n, dtype=torch.uint8, pin_memory=pinned)
        return t.numpy(), t, t
    if pinned:
        ptr = rt.hostAlloc(n, 0)
        view = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(ptr))
        return view, None, ptr
    a = np.empty(n, dtype=np.uint8)
    return a, None, a


def run_one(timer, torch, ext, cp, np, rt, impl, h2d, n, source, dev):
    pinned = impl.endswith("_pinned")
    host, host_t, keep = host_buffer(torch, cp, np, rt, impl, n)
    stream = timer.stream.ptr
    if h2d:
        host[:] = source  # every page of the source written, so touched

        def poison():
            rt.memsetAsync(dev.data.ptr, 0xFF, n, stream)
    else:
        def poison():
            timer.stream.synchronize()
            host.fill(0xFF)

    dev_t = torch.from_dlpack(dev) if host_t is not None else None
    if impl.startswith("cuda"):
        hptr = host.ctypes.data

        def work():
            if h2d:
                rt.memcpyAsync(dev.data.ptr, hptr, n, HOST_TO_DEVICE, stream)
            else:
                rt.memcpyAsync(hptr, dev.data.ptr, n, DEVICE_TO_HOST, stream)
    else:
        def work():
            with torch.cuda.stream(ext):
                if h2d:
                    dev_t.copy_(host_t, non_blocking=pinned)
                else:
                    host_t.copy_(dev_t, non_blocking=pinned)

    timer.poison = poison
    timer.blocked = pinned
    # One untimed copy: lazy loading and first touches stay out.
    poison()
    s = timer.first_then_cold(work)
    got = cp.asnumpy(dev) if h2d else host
    passed = bool(np.array_equal(got, source))
    emit(
        {
            "impl": impl,
            "n": n,
            "bytes": n,
            "direction": "h2d" if h2d else "d2h",
            **pp.timing_fields(s, n),
            "error": 0.0 if passed else 1.0,
            "tolerance": 0.0,
            "pass": passed,
            "times_us": s["times"],
        }
    )
    pp.progress(f"{impl:<15} {size_text(n):>8}", s, passed)
    timer.poison = lambda: None
    timer.blocked = True
    if impl == "cuda_pinned":
        rt.freeHost(keep)


if __name__ == "__main__":
    sys.exit(main())
