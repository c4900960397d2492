#!/usr/bin/env python3
"""All-reduce peer: torch.distributed.all_reduce (NCCL backend, float32
sum, in place, as training calls it) on k ranks, one GPU each, checked and
timed as `cuda-runner allreduce` checks and times its all-reduces
(runner/src/allreduce/, runner/core/src/allreduce/).

Usage (JSON lines from rank 0 on stdout, or into --out):
  python3 bench/peers/allreduce_torch.py [--sizes 8..256MiB]    # one process, world size 1
  python3 bench/peers/allreduce_torch.py --spawn K [...]         # K processes (mp.spawn), GPUs 0..K-1
  torchrun --nproc-per-node K bench/peers/allreduce_torch.py [...]

Without torchrun's variables the script is rank 0 of a world of one, set up
by env:// on 127.0.0.1 and a free port. Lines: one "meta" line (torch, its
NCCL, every rank's GPU, the environment, the method), then one line per
message size ("skipped" with the reason where it does not fit).

Method, per size: every rank's input is drawn by its own generator
(seed and rank); one all-reduce of a copy is checked on every rank
against the float64 sum of all ranks' inputs (each rank redraws them), with
the runner's tolerance gamma(k-1) k R; then samples of `reps`
back-to-back all-reduces (enough for 200 us), each bracketed by one event
pair per rank after warm-up, until the runner's stop rule (bench/peers/
method.py) ends sampling. A sample's time is the slowest rank's, as in the
runner. Two differences, stated in the meta line: the stream is held by
torch.cuda._sleep (a spin of twice the host's queueing time of the last
sample, and never under 50 us) instead of the runner's flag-released
blocking kernel, and samples whose queueing outlasted the sleep are
counted as `sleep_short` (host latency may be inside them); and the ranks
are separate processes, so there is no common release: each rank starts
when its own sleep ends, and a dist.barrier() before each sample keeps the
ranks within a few microseconds, spread over `reps` all-reduces. SM clocks
are not read (no sample is dropped for throttling).

NVLink multicast stays off: NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1 are set in
this process's environment before torch is imported, and spawned and
torchrun-launched ranks inherit them (../shared/briefs/multigpu.md).
"""

import os

# Before anything imports torch or NCCL, in this process and its children.
MULTICAST_OFF = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
for _name, _value in MULTICAST_OFF.items():
    os.environ[_name] = _value

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from method import POLICY, Policy, median, rel_stdev, stop_after  # noqa: E402

# The runner's values (runner/core/src/allreduce/): sizes.rs, timing.rs,
# tolerance.rs, bandwidth.rs.
MIN_BYTES = 8
MAX_BYTES = 4 << 30
SAMPLE_TARGET_US = 200.0
MAX_REPS = 100
UNIT_ROUNDOFF = 2.0 ** -24
RANGE = 1.0  # torch.rand(...) * 2 - 1 lies in [-1, 1)
MIN_SLEEP_US = 50.0
CHECK_PIECE = 1 << 26  # elements compared at a time
# Device memory a size needs per rank: input, its copy, the float64
# reference and one rank's redrawn input (5 x the message), plus headroom
# for the check's pieces and NCCL.
HEADROOM_BYTES = 1 << 30
IMPL = "torch.distributed.all_reduce"


def parse_bytes(text):
    """A byte count: 1000, 8B, 64KiB (or 64K), 256MiB, 4GiB, 2^20."""
    t = text.strip().replace("_", "")
    if t.startswith("2^"):
        return 2 ** int(t[2:])
    digits = len(t) - len(t.lstrip("0123456789"))
    if digits == 0:
        raise ValueError(f"`{text.strip()}` is not a byte count")
    number, unit = int(t[:digits]), t[digits:].lower()
    shifts = {"": 0, "b": 0, "k": 10, "kib": 10, "m": 20, "mib": 20, "g": 30, "gib": 30}
    if unit not in shifts:
        raise ValueError(f"`{text.strip()}` is not a byte count")
    return number << shifts[unit]


def parse_sizes(text):
    """Comma-separated byte counts and ranges A..B of powers of two, sorted,
    without repeats; every size a whole number of floats."""
    sizes = set()
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        if ".." in item:
            low, high = (parse_bytes(p) for p in item.split("..", 1))
            if low <= 0 or high < low or low & (low - 1) or high & (high - 1):
                raise ValueError(f"`{item}`: a range runs from a power of two up to a larger one")
            b = low
            while b <= high:
                sizes.add(b)
                b *= 2
        else:
            sizes.add(parse_bytes(item))
    if not sizes:
        raise ValueError("the size list is empty")
    for b in sizes:
        if b <= 0 or b % 4:
            raise ValueError(f"{b} B is not a whole number of floats")
    return sorted(sizes)


def default_sizes():
    return parse_sizes(f"{MIN_BYTES}..{MAX_BYTES}")


def gamma(m):
    mu = m * UNIT_ROUNDOFF
    return mu / (1.0 - mu)


def tolerance(ranks, value_range=RANGE):
    """The runner's tolerance: gamma(k - 1) k R (0 for one rank)."""
    return gamma(max(ranks - 1, 0)) * ranks * value_range


def bus_factor(ranks):
    """nccl-tests' 2 (k - 1) / k; 0 for one rank."""
    return 0.0 if ranks <= 0 else 2.0 * (ranks - 1) / ranks


def reps_for(single_us):
    """All-reduces per sample when one takes `single_us` (the runner's rule)."""
    if not (single_us > 0.0) or math.isinf(single_us):
        return MAX_REPS
    return max(1, min(MAX_REPS, math.ceil(SAMPLE_TARGET_US / single_us)))


def sleep_us_for(queued_us):
    """How long the spin holds the stream: twice the last sample's queueing."""
    return max(MIN_SLEEP_US, 2.0 * queued_us)


def summarize(per_rank, reps, nbytes, ranks):
    """Figures from per-sample lists of every rank's time per all-reduce."""
    times = [max(s) for s in per_rank]
    med = median(times)
    algbw = nbytes / (med * 1e-6) / 1e9 if med > 0 else float("nan")
    return {
        "reps": reps,
        "samples": len(times),
        "median_us": med,
        "min_us": min(times),
        "max_us": max(times),
        "rel_spread": rel_stdev(times),
        "per_rank_median_us": [median([s[r] for s in per_rank]) for r in range(ranks)],
        "algbw_gbs": algbw,
        "busbw_gbs": algbw * bus_factor(ranks),
    }


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def emit(line, out):
    text = json.dumps(line)
    if out is None:
        print(text, flush=True)
    else:
        out.write(text + "\n")
        out.flush()


class Rank:
    """One rank's process group member, its GPU, events and sleep calibration."""

    def __init__(self, torch, dist, args):
        self.torch, self.dist = torch, dist
        self.rank = int(os.environ["RANK"])
        self.world = int(os.environ["WORLD_SIZE"])
        self.local = int(os.environ.get("LOCAL_RANK", self.rank))
        torch.cuda.set_device(self.local)
        self.device = torch.device("cuda", self.local)
        try:
            dist.init_process_group("nccl", device_id=self.device)
        except TypeError:  # torch before 2.3 has no device_id
            dist.init_process_group("nccl")
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.seed = args.seed
        self.cycles_per_us = self._calibrate()
        self.queued_us = 1000.0  # a generous first hold

    def _calibrate(self):
        """Cycles of torch.cuda._sleep per microsecond on this GPU."""
        torch = self.torch
        cycles = 10_000_000
        torch.cuda._sleep(cycles)  # warm-up
        self.start.record()
        torch.cuda._sleep(cycles)
        self.stop.record()
        torch.cuda.synchronize()
        return cycles / (self.start.elapsed_time(self.stop) * 1000.0)

    def draw(self, rank, n):
        """Rank `rank`'s input: its own generator, uniform in [-1, 1)."""
        g = self.torch.Generator(device=self.device)
        g.manual_seed(self.seed * 1_000_003 + rank)
        return self.torch.rand(n, generator=g, device=self.device) * 2.0 - 1.0

    def check(self, x, n):
        """One all-reduce of a copy of x, checked against the float64 sum of
        every rank's input (redrawn here), piece by piece to bound memory."""
        torch = self.torch
        ref = torch.zeros(n, dtype=torch.float64, device=self.device)
        for r in range(self.world):
            ref += self.draw(r, n)  # upcast in place: no float64 copy of the draw
        buf = x.clone()
        self.dist.all_reduce(buf)
        torch.cuda.synchronize()
        tol = tolerance(self.world)
        bad, worst = 0, 0.0
        for first in range(0, n, CHECK_PIECE):
            got = buf[first:first + CHECK_PIECE]
            err = (got.double() - ref[first:first + CHECK_PIECE]).abs()
            bad += int(((~(err <= tol)) | (~torch.isfinite(got))).sum().item())
            worst = max(worst, float(torch.nan_to_num(err, nan=math.inf).max().item()))
        del ref, buf
        stats = torch.tensor([float(bad), worst], dtype=torch.float64, device=self.device)
        self.dist.all_reduce(stats, op=self.dist.ReduceOp.MAX)
        bad_max, err_max = stats.tolist()
        return {"pass": bad_max == 0, "bad_on_worst_rank": int(bad_max), "max_abs_error": err_max,
                "tolerance": tol}

    def interval(self, buf, reps):
        """One sample: barrier, spin, start, reps all-reduces, stop; returns
        every rank's time per all-reduce (us) and whether the spin was short."""
        torch, dist = self.torch, self.dist
        dist.barrier()
        torch.cuda.synchronize()
        hold_us = sleep_us_for(self.queued_us)
        t0 = time.perf_counter()
        torch.cuda._sleep(int(hold_us * self.cycles_per_us))
        self.start.record()
        for _ in range(reps):
            dist.all_reduce(buf)
        self.stop.record()
        self.queued_us = (time.perf_counter() - t0) * 1e6
        torch.cuda.synchronize()
        mine = self.start.elapsed_time(self.stop) * 1000.0 / reps
        short = 1.0 if self.queued_us > hold_us else 0.0
        mine_t = torch.tensor([mine, short], dtype=torch.float64, device=self.device)
        every = torch.empty(2 * self.world, dtype=torch.float64, device=self.device)
        dist.all_gather_into_tensor(every, mine_t)
        values = every.tolist()
        return values[0::2], any(values[1::2])

    def decide(self, verdict):
        """Rank 0's stop verdict (None, False or True) on every rank."""
        code = {None: 0.0, False: 1.0, True: 2.0}[verdict]
        t = self.torch.tensor([code], dtype=self.torch.float64, device=self.device)
        self.dist.broadcast(t, src=0)
        return {0.0: None, 1.0: False, 2.0: True}[t.item()]

    def time(self, buf, policy):
        """Warm-up, then samples until the stop rule says enough."""
        self.interval(buf, 1)
        single, _ = self.interval(buf, 1)
        reps = reps_for(max(single))
        per_rank, history, times = [], [], []
        short = 0
        started = time.monotonic()
        while True:
            sample, was_short = self.interval(buf, reps)
            short += int(was_short)
            per_rank.append(sample)
            times.append(max(sample))
            history.append(rel_stdev(times))
            gpu_s = sum(times) * reps / 1e6
            verdict = stop_after(policy, history, gpu_s, time.monotonic() - started)
            verdict = self.decide(verdict)
            if verdict is not None:
                return per_rank, reps, verdict, short


def meta_line(torch, dist, rank, args):
    """What ran: torch, its NCCL, every rank's GPU, the environment."""
    props = torch.cuda.get_device_properties(rank.local)
    mine = {
        "rank": rank.rank,
        "local_rank": rank.local,
        "name": props.name,
        "uuid": str(getattr(props, "uuid", "")),
        "pci_bus_id": getattr(props, "pci_bus_id", None),
    }
    gpus = [None] * rank.world
    dist.all_gather_object(gpus, mine)
    try:
        nccl = ".".join(str(v) for v in torch.cuda.nccl.version())
    except Exception as e:  # a build without NCCL would not have got this far
        nccl = f"unknown ({e})"
    return {
        "impl": "meta",
        "source": "allreduce_torch.py",
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "nccl": nccl,
        "ranks": rank.world,
        "gpus": gpus,
        "environment": {k: v for k, v in os.environ.items()
                        if k.startswith("NCCL_") or k in MULTICAST_OFF or k == "CUDA_VISIBLE_DEVICES"},
        "seed": args.seed,
        "tolerance": tolerance(rank.world),
        "sleep_cycles_per_us": rank.cycles_per_us,
        "method": "hot: barrier, torch.cuda._sleep holding the stream (2 x last queueing, >= 50 us), "
                  "start event, reps in-place all-reduces, stop event per rank; sample = slowest rank; "
                  "runner's stop rule; SM clocks not read",
        "timeout_s": args.timeout_s,
        "min_gpu_s": args.min_gpu_s,
    }


def worker(args):
    import torch
    import torch.distributed as dist

    rank = Rank(torch, dist, args)
    out = open(args.out, "w") if (args.out and rank.rank == 0) else None
    say = (lambda line: emit(line, out)) if rank.rank == 0 else (lambda line: None)
    policy = Policy(
        min_samples=POLICY.min_samples,
        target_noise=POLICY.target_noise,
        min_gpu_s=args.min_gpu_s,
        timeout_s=args.timeout_s,
        max_wall_s=POLICY.max_wall_s,
        max_samples=POLICY.max_samples,
    )
    try:
        say(meta_line(torch, dist, rank, args))
        for nbytes in args.sizes:
            n = nbytes // 4
            line = {"impl": IMPL, "bytes": nbytes, "elements": n, "ranks": rank.world}
            free = torch.tensor([float(torch.cuda.mem_get_info()[0])], dtype=torch.float64,
                                device=rank.device)
            dist.all_reduce(free, op=dist.ReduceOp.MIN)
            need = 5 * nbytes + HEADROOM_BYTES
            if need > free.item():
                say({**line, "skipped": f"needs {need} B per GPU, {int(free.item())} B free on the fullest"})
                continue
            x = rank.draw(rank.rank, n)
            check = rank.check(x, n)
            line["check"] = check
            if check["pass"]:
                buf = x.clone()
                per_rank, reps, noisy, short = rank.time(buf, policy)
                line.update(summarize(per_rank, reps, nbytes, rank.world))
                line.update({"noisy": noisy, "sleep_short": short})
                del buf
            say(line)
            if rank.rank == 0:
                t = line.get("median_us")
                print(f"[allreduce_torch] {nbytes} B: "
                      + (f"{t:.2f} us, algbw {line['algbw_gbs']:.1f} GB/s" if t else "not timed")
                      + f", check {'ok' if check['pass'] else 'FAILED'}", file=sys.stderr)
            del x
            torch.cuda.empty_cache()
    finally:
        if out is not None:
            out.close()
        dist.destroy_process_group()


def spawned(local, world, port, args):
    os.environ.update({"RANK": str(local), "LOCAL_RANK": str(local), "WORLD_SIZE": str(world),
                       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    worker(args)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=parse_sizes, default=None,
                    help="byte counts and ranges, e.g. 8..256MiB (default 8..4GiB)")
    ap.add_argument("--spawn", type=int, default=0, help="start K ranks with mp.spawn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout-s", type=float, default=POLICY.timeout_s)
    ap.add_argument("--min-gpu-s", type=float, default=POLICY.min_gpu_s)
    ap.add_argument("--out", default=None, help="JSON lines file (default stdout)")
    args = ap.parse_args(argv)
    if args.sizes is None:
        args.sizes = default_sizes()
    if args.spawn:
        import torch.multiprocessing as mp

        mp.spawn(spawned, args=(args.spawn, free_port(), args), nprocs=args.spawn, join=True)
        return 0
    if "RANK" not in os.environ:  # a world of one, as torchrun would set it up
        os.environ.update({"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1",
                           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())})
    worker(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
