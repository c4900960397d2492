#!/usr/bin/env python3
"""Peer benchmark: torch.sum and cupy.sum over float32, timed with the book
runner's cold method (runner/src/measure.rs), the same method as cub_sum.cu.

Usage: python3 python_peers.py [--min-log2 16] [--max-log2 30] [--seed 1]
                               [--impls torch,cupy]
Output (stdout, JSON lines): one "meta" line, then one line per (impl, N).
Progress goes to stderr.

CuPy provides the method's machinery (blocking kernel, flush, events), so
without CuPy nothing is timed; without torch only cupy.sum is timed. Torch
runs on the very stream CuPy uses (torch.cuda.ExternalStream), so the blocker,
the flush, the events and the timed work are all queued in one stream.

The other Python harnesses here import their Timer from this module, and
what they all do the same way (options, meta line, GPU libraries, result
lines, progress lines), at the end of it.
"""

import argparse
import contextlib
import ctypes
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from method import Policy, median, rel_stdev, stop_after  # noqa: E402

# The sampling policy: the runner's POLICY (measure.rs), value for value.
MIN_SAMPLES = 10
TARGET_NOISE = 0.005      # relative stdev that ends sampling
# The whole budget; one of --processes P processes takes 1/P of the GPU
# time, time-out and sample cap (the runner's Policy::share), and pool.py
# pools the P processes' samples.
MIN_GPU_S = 0.1           # GPU time needed before it may
TIMEOUT_S = 3.0           # wall time, then labelled noisy
THROTTLE_FRACTION = 0.75  # of the default SM clock
MAX_SAMPLES = 2000
MAX_WALL_S = 12.0         # not split: past it, stop even short of MIN_SAMPLES
BLOCKER_TIMEOUT_NS = 2_000_000_000

# cudaDeviceAttr values (cuda_runtime_api.h), used by number so the script
# does not depend on which names a CuPy build exports.
ATTR_CLOCK_RATE = 13
ATTR_MULTIPROCESSOR_COUNT = 16
ATTR_L2_CACHE_SIZE = 38

# The runner's own support kernels (runner/src/support_kernels.cu), of which
# cm_blocker is used: it holds the stream until the host has queued the timed
# work, so host launch latency never falls inside the timed interval;
# flag[1] records a time-out.
SUPPORT_KERNELS = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "runner", "src", "support_kernels.cu"
)


def blocker_source():
    with open(SUPPORT_KERNELS) as f:
        return f.read()


# Fallback input generator (only if cupy.random fails): the splitmix64
# counter generator of cub_sum.cu, values (2k + 1) * 2^-24 in (0, 1).
SPLITMIX_SRC = r"""
extern "C" __global__ void fill_uniform(float* x, unsigned long long n, unsigned long long seed) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned long long z = seed + i + 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z = z ^ (z >> 31);
        unsigned long long k = z >> 41;
        x[i] = (float)(2 * k + 1) * 0x1p-24f;
    }
}
"""


def finite_or_none(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


def kernel_driver_version():
    """The kernel module's version ("580.95.05"), read as the runner reads it."""
    try:
        with open("/proc/driver/nvidia/version") as f:
            line = f.readline()
    except OSError:
        return None
    for w in line.split():
        if "." in w and all(c.isdigit() or c == "." for c in w):
            return w
    return None


def version_string(v):
    return f"{v // 1000}.{(v % 1000) // 10}"


class Nvml:
    """SM clock through NVML (ctypes), read after every sample as the runner
    does, so throttled samples are dropped. Like the runner: NVML device 0."""

    NVML_CLOCK_SM = 1

    def __init__(self):
        self.lib = None
        self.dev = None
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            if lib.nvmlInit_v2() != 0:
                return
            dev = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(0), ctypes.byref(dev)) != 0:
                return
            self.lib, self.dev = lib, dev
        except (OSError, AttributeError):
            pass

    def sm_mhz(self):
        if self.lib is None:
            return None
        mhz = ctypes.c_uint(0)
        rc = self.lib.nvmlDeviceGetClockInfo(self.dev, ctypes.c_int(self.NVML_CLOCK_SM), ctypes.byref(mhz))
        return float(mhz.value) if rc == 0 else None


class Timer:
    """The runner's Timer (measure.rs) on one CuPy stream. All methods must
    run inside `with self.stream:` (the blocker launches on the current
    stream)."""

    def __init__(self, cp, np, device=0):
        self.cp, self.np = cp, np
        rt = cp.cuda.runtime
        self.rt = rt
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.start = cp.cuda.Event()  # timing enabled by default
        self.stop = cp.cuda.Event()
        l2 = rt.deviceGetAttribute(ATTR_L2_CACHE_SIZE, device)
        self.l2_bytes = l2
        self.flush_bytes = max(2 * l2, 256 << 20)
        self.flush = cp.empty(self.flush_bytes, dtype=cp.uint8)
        self.flush_value = 0
        # Parity with cub_sum.cu's output reset: torch and cupy allocate their
        # own outputs, so this 4-byte buffer stands in for the accumulator.
        self.out_stub = cp.empty(1, dtype=cp.float32)
        # Two ints of pinned, device-mapped host memory; with unified
        # addressing the device pointer is found through the pointer's
        # attributes (CuPy has no cudaHostGetDevicePointer binding).
        mapped = getattr(rt, "hostAllocMapped", 2)
        self.flag_ptr = rt.hostAlloc(8, mapped)
        self.flag = (ctypes.c_int * 2).from_address(self.flag_ptr)
        self.flag[0] = 1
        self.flag[1] = 0
        try:
            self.flag_dev = rt.pointerGetAttributes(self.flag_ptr).devicePointer or self.flag_ptr
        except Exception:
            self.flag_dev = self.flag_ptr
        self.blocker = cp.RawKernel(blocker_source(), "cm_blocker")
        self.nvml = Nvml()
        self.default_clock_mhz = rt.deviceGetAttribute(ATTR_CLOCK_RATE, device) / 1000.0
        # Compile and load the blocker now (flag already released, so it exits
        # at once).
        with self.stream:
            self._launch_blocker()
        self.stream.synchronize()

    def _launch_blocker(self):
        np = self.np
        self.blocker((1,), (1,), (np.uint64(self.flag_dev), np.uint64(BLOCKER_TIMEOUT_NS)))

    def release(self):
        self.flag[0] = 1

    def close(self):
        self.release()
        self.stream.synchronize()
        self.rt.freeHost(self.flag_ptr)

    def reset(self):
        self.rt.memsetAsync(self.out_stub.data.ptr, 0, 4, self.stream.ptr)

    def flush_l2(self):
        """Queues the L2 flush: a memset of twice the L2."""
        # Change the value every sample so no memory system can skip a repeated write.
        self.flush_value = (self.flush_value + 1) & 0xFF
        self.rt.memsetAsync(self.flush.data.ptr, self.flush_value, self.flush_bytes, self.stream.ptr)

    def one_cold(self, work):
        """One cold sample; returns microseconds and whether the blocker timed out."""
        self.reset()
        self.flush_l2()
        # The stream is idle here, so nothing reads the flag while it is re-armed.
        self.flag[0] = 0
        self.flag[1] = 0
        try:
            self._launch_blocker()
            self.start.record(self.stream)
            work()
            self.stop.record(self.stream)
        finally:
            # Released whatever happened, so no blocker is left spinning.
            self.release()
        self.stream.synchronize()
        ms = self.cp.cuda.get_elapsed_time(self.start, self.stop)
        return ms * 1000.0, self.flag[1] != 0

    def one_unblocked(self, work):
        """A cold sample without the blocking kernel, for work that waits for
        the stream inside the call (the runner's pageable host copy): flush,
        start, work, stop, synchronise. Never a blocker time-out."""
        self.flush_l2()
        self.start.record(self.stream)
        work()
        self.stop.record(self.stream)
        self.stream.synchronize()
        return self.cp.cuda.get_elapsed_time(self.start, self.stop) * 1000.0, False

    @staticmethod
    def policy():
        """This process's share of the policy, for method.stop_after."""
        return Policy(
            min_samples=MIN_SAMPLES,
            target_noise=TARGET_NOISE,
            min_gpu_s=MIN_GPU_S,
            timeout_s=TIMEOUT_S,
            max_wall_s=MAX_WALL_S,
            max_samples=MAX_SAMPLES,
        )

    def cold(self, work):
        """Warm-up, then adaptive sampling with the runner's stop rules."""
        times, clocks, history = [], [], []
        throttled = timeouts = 0
        noisy = False
        self.one_cold(work)  # warm-up, discarded
        started = time.monotonic()
        while True:
            t, timed_out = self.one_cold(work)
            timeouts += int(timed_out)
            clock = self.nvml.sm_mhz()
            if clock is not None and clock < THROTTLE_FRACTION * self.default_clock_mhz:
                throttled += 1
            else:
                times.append(t)
                if clock is not None:
                    clocks.append(clock)
            n = len(times)
            gpu_s = sum(times) / 1e6
            noise = rel_stdev(times)
            if len(history) < n:  # one entry per kept sample, as the runner keeps it
                history.append(noise)
            elapsed = time.monotonic() - started
            verdict = stop_after(self.policy(), history, gpu_s, elapsed)
            if verdict is not None:
                noisy = verdict
                break
        return {
            "times": times,
            "throttled": throttled,
            "blocker_timeouts": timeouts,
            "noisy": noisy,
            "sm_clock_mhz": median(clocks),
        }

    def first_then_cold(self, work, prepare=None):
        """One untimed call before the warm-up (lazy module loading and the
        first allocation from a caching pool may wait for the device, i.e.
        for the blocker), then `prepare` (e.g. the output poisoned) and the
        cold samples, the stream synchronised after each."""
        work()
        self.stream.synchronize()
        if prepare is not None:
            prepare()
        s = self.cold(work)
        self.stream.synchronize()
        return s


def make_input(cp, n, seed):
    """Float32 uniform on the GPU; returns (array, generator name)."""
    try:
        return cp.random.default_rng(seed).random(n, dtype=cp.float32), "cupy.random.default_rng"
    except Exception as e:  # e.g. no cuRAND in this environment
        print(f"python_peers: cupy.random failed ({e}); using splitmix64", file=sys.stderr)
        x = cp.empty(n, dtype=cp.float32)
        k = cp.RawKernel(SPLITMIX_SRC, "fill_uniform")
        k((1024,), (256,), (x, cp.uint64(n), cp.uint64(seed)))
        return x, "splitmix64"


def emit(record):
    print(json.dumps(record), flush=True)


def set_processes(processes):
    """Takes this process's 1/P share of the policy (GPU time, time-out,
    sample cap) for Timer.policy; call once, before any sampling. Returns P
    (at least 1)."""
    global MIN_GPU_S, TIMEOUT_S, MAX_SAMPLES
    processes = max(1, processes)
    MIN_GPU_S /= processes
    TIMEOUT_S /= processes
    MAX_SAMPLES = max(MIN_SAMPLES, MAX_SAMPLES // processes)
    return processes


# ---------------------------------------------------------------------------
# What every harness here (this one, scan_peers.py, histogram_peers.py,
# matmul_peers.py, memory_peers.py, rows_peers.py, transfer_peers.py) does
# the same way: its options, its meta line, its GPU libraries, its lines.

COLD_METHOD = "cold: reset, L2 flush memset, blocker, events; runner POLICY"


def parse_args(ap):
    """Adds the options every harness takes (--seed 1, --processes 1) to
    `ap`, parses the command line and takes this process's share of the
    policy (set_processes): args.processes is then P, at least 1."""
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=1)
    args = ap.parse_args()
    args.processes = set_processes(args.processes)
    return args


def names(text):
    """A comma-separated list ("torch,cupy") as its names."""
    return [s.strip() for s in text.split(",") if s.strip()]


def meta_line(source, processes, **fields):
    """A harness's meta line as it starts: source, `fields`, Python, P."""
    return {"impl": "meta", "source": source, **fields, "python": sys.version.split()[0],
            "processes": processes}


def nothing_timed(meta, name, error):
    """Emits the meta line with the error that stops a harness before
    anything is timed, and says so on stderr."""
    meta["error"] = error
    emit(meta)
    print(f"{name}: {meta['error']}; nothing timed", file=sys.stderr)


def open_gpu(meta, name, error="import failed", timer_class=None, with_torch="required", device=0):
    """numpy, cupy and torch imported (`with_torch`: "required", "optional"
    or "none"), device 0 current (the runner measures device 0), a Timer
    (or `timer_class`) on it and torch's ExternalStream of the Timer's
    stream: (np, cp, torch, timer, ext), torch and ext None without torch.
    None where numpy, cupy or a required torch did not import, once the
    meta line has said so (`error`: the import's exception); an optional
    torch that does not import is the meta line's torch_error."""
    torch = None
    try:
        import numpy as np
        import cupy as cp

        if with_torch == "required":
            import torch
    except Exception as e:
        nothing_timed(meta, name, f"{error}: {e}")
        return None
    if with_torch == "optional":
        try:
            import torch
        except Exception as e:
            meta["torch_error"] = f"import failed: {e}"
    cp.cuda.Device(device).use()
    timer = (timer_class or Timer)(cp, np, device)
    ext = None
    if torch is not None:
        torch.cuda.init()
        ext = torch.cuda.ExternalStream(timer.stream.ptr)
    return np, cp, torch, timer, ext


def driver_version(rt):
    """The meta line's driver: the kernel module's version, else the CUDA
    driver API's."""
    return kernel_driver_version() or f"CUDA {version_string(rt.driverGetVersion())}"


def torch_meta(timer, cp, torch, device=0):
    """The device and version fields of the torch harnesses' meta lines."""
    rt = cp.cuda.runtime
    return {
        "gpu": torch.cuda.get_device_name(device),
        "l2_bytes": timer.l2_bytes,
        "default_sm_clock_mhz": timer.default_clock_mhz,
        "driver": driver_version(rt),
        "cuda_driver_api": version_string(rt.driverGetVersion()),
        "cuda_runtime": version_string(rt.runtimeGetVersion()),
        "cupy": cp.__version__,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
    }


def method_meta(timer, seed, method=COLD_METHOD, **fields):
    """The meta line's closing fields: the flush, NVML, the seed, `fields`
    and the method."""
    return {"flush_bytes": timer.flush_bytes, "nvml_clocks": timer.nvml.lib is not None, "seed": seed,
            **fields, "method": method}


@contextlib.contextmanager
def on_timer_stream(timer, torch, ext):
    """CuPy's and torch's work on the Timer's one stream (asserted), the
    Timer closed after, whatever happened."""
    try:
        with timer.stream, torch.cuda.stream(ext):
            assert torch.cuda.current_stream().cuda_stream == timer.stream.ptr, "torch is on another stream"
            yield
    finally:
        timer.close()


def timing_fields(s, nbytes):
    """A line's timing fields from Timer.cold's samples `s`, gb_per_s of
    `nbytes` over the median."""
    times = s["times"]
    med = median(times)
    return {
        "median_us": med,
        "min_us": min(times) if times else None,
        "max_us": max(times) if times else None,
        "samples": len(times),
        "rel_spread": rel_stdev(times),
        "noisy": s["noisy"],
        "throttled": s["throttled"],
        "blocker_timeouts": s["blocker_timeouts"],
        "sm_clock_mhz": s["sm_clock_mhz"],
        "gb_per_s": nbytes / (med * 1e-6) / 1e9 if med > 0 else None,
    }


def progress(what, s, passed):
    """The progress line of one timed line on stderr: what was timed, then
    the median, the samples and the check."""
    times = s["times"]
    print(
        f"  {what}  median {median(times):.2f} us  ({len(times)} samples"
        f"{', noisy' if s['noisy'] else ''})  {'pass' if passed else 'FAIL'}",
        file=sys.stderr,
    )


def failed(ex, **fields):
    """The line of a peer that raised: `fields`, the error, no samples."""
    return {**fields, "failure": f"{type(ex).__name__}: {ex}"[:500], "times_us": []}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-log2", type=int, default=16)
    ap.add_argument("--max-log2", type=int, default=30)
    ap.add_argument("--impls", default="torch,cupy")
    args = parse_args(ap)
    wanted = names(args.impls)

    meta = meta_line("python_peers.py", args.processes)
    gpu = open_gpu(meta, "python_peers", error="cupy/numpy import failed",
                   with_torch="optional" if "torch" in wanted else "none")
    if gpu is None:
        return 0
    np, cp, torch, timer, ext = gpu
    device = 0  # the runner measures device 0
    rt = cp.cuda.runtime

    try:
        props = rt.getDeviceProperties(device)
    except Exception:  # a field this CuPy build cannot read; only the name matters
        props = {"name": torch.cuda.get_device_name(device) if torch is not None else "unknown"}
    name = props.get("name", b"")
    meta.update(
        {
            "gpu": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props.get('major')}.{props.get('minor')}",
            "sm_count": rt.deviceGetAttribute(ATTR_MULTIPROCESSOR_COUNT, device),
            "l2_bytes": timer.l2_bytes,
            "default_sm_clock_mhz": timer.default_clock_mhz,
            "driver": driver_version(rt),
            "cuda_driver_api": version_string(rt.driverGetVersion()),
            "cupy": cp.__version__,
            "cupy_cuda_runtime": version_string(rt.runtimeGetVersion()),
            "numpy": np.__version__,
            "torch": torch.__version__ if torch is not None else None,
            "torch_cuda": torch.version.cuda if torch is not None else None,
            **method_meta(timer, args.seed),
        }
    )
    try:
        from cupy._core import _accelerator

        meta["cupy_reduction_accelerators"] = [str(a) for a in _accelerator.get_reduction_accelerators()]
        meta["cupy_routine_accelerators"] = [str(a) for a in _accelerator.get_routine_accelerators()]
    except Exception:
        pass
    emit(meta)

    impls = []
    if "torch" in wanted and torch is not None:
        impls.append("torch")
    if "cupy" in wanted:
        impls.append("cupy")

    try:
        with timer.stream:
            for e in range(args.min_log2, args.max_log2 + 1, 2):
                n = 1 << e
                x_c, generator = make_input(cp, n, args.seed)
                # Float64 reference on the GPU; every value is >= 0, so the
                # sum of |x| is the sum itself.
                ref = float(cp.sum(x_c, dtype=cp.float64))
                abs_sum = ref
                timer.stream.synchronize()
                x_t = None
                if "torch" in impls:
                    try:
                        x_t = torch.from_dlpack(x_c)  # the same memory, no copy
                    except Exception:
                        x_t = torch.as_tensor(x_c, device="cuda")  # __cuda_array_interface__
                    assert x_t.data_ptr() == x_c.data.ptr, "torch made a copy of the input"
                for impl in impls:
                    run_one(timer, torch, ext, cp, impl, x_c, x_t, n, ref, abs_sum, generator)
                del x_t, x_c
                cp.get_default_memory_pool().free_all_blocks()
                if torch is not None:
                    torch.cuda.empty_cache()
    finally:
        timer.close()
    return 0


def run_one(timer, torch, ext, cp, impl, x_c, x_t, n, ref, abs_sum, generator):
    holder = [None]
    if impl == "torch":
        ctx = torch.cuda.stream(ext)

        def work():
            holder[0] = torch.sum(x_t)
    else:
        ctx = contextlib.nullcontext()

        def work():
            holder[0] = cp.sum(x_c)

    with ctx:
        if impl == "torch":
            assert torch.cuda.current_stream().cuda_stream == timer.stream.ptr, "torch is on another stream"
        s = timer.first_then_cold(work)
        got = float(holder[0])

    error = abs(got - ref) / abs_sum
    tolerance = 4.0 * math.sqrt(n) * 2.0 ** -24
    passed = math.isfinite(got) and error <= tolerance
    emit(
        {
            "impl": impl,
            "n": n,
            **timing_fields(s, n * 4),
            "got": finite_or_none(got),
            "ref": ref,
            "error": finite_or_none(error),
            "tolerance": tolerance,
            "pass": passed,
            "input": generator,
            "times_us": s["times"],
        }
    )
    progress(f"{impl:<8} n=2^{int(round(math.log2(n)))}", s, passed)


if __name__ == "__main__":
    sys.exit(main())
