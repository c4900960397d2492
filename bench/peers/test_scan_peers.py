"""Tests of scan_peers.py, the scan's peers, that need no GPU: run by
scripts/test. The sizes, byte counts and tolerance always run; the check
runs on CPU tensors where torch imports, and is skipped (saying so) only
where it does not. Also: the scan's lines pool to their own 8 N bytes, and
peers.toml's entry names the harness and keys these programs write."""
import math
import os
import sys
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pool  # noqa: E402
import scan_peers as sp  # noqa: E402
from unittest_main import main  # noqa: E402

try:
    import torch
except ImportError:  # only a missing library skips; a broken one fails
    torch = None
NO_TORCH = "torch is not installed here: the scan check is not tested"
HERE = os.path.dirname(os.path.abspath(__file__))


class Sizes(unittest.TestCase):
    # Every second power of two from 2^24 to 2^30 by default: the sizes the
    # chapter's fast kernels declare, as cub_scan.cu times them.
    def test_default_sizes_are_those_of_the_fast_kernels(self):
        self.assertEqual(sp.sizes(24, 30), [1 << 24, 1 << 26, 1 << 28, 1 << 30])

    # x read once, y written once: the problem's 8 N.
    def test_bytes_are_a_read_and_a_write(self):
        self.assertEqual(sp.bytes_moved(1 << 28), 8 << 28)

    # The runner's scan_f32 tolerance at a timed size, 4 sqrt(N) 2^-24.
    def test_tolerance_is_the_runners(self):
        self.assertEqual(sp.tolerance(1 << 24), 4 * 4096 * 2.0**-24)

    # A pooled scan line's bandwidth is of its own bytes (8 N), not of the
    # sum's 4 N that pool.py assumes for lines without a byte count.
    def test_pooled_bandwidth_uses_the_lines_bytes(self):
        n = 1 << 24
        line = {"impl": "torch", "n": n, "bytes": sp.bytes_moved(n), "times_us": [100.0, 100.0],
                "pass": True}
        (pooled,) = pool.pool([__import__("json").dumps(line)])
        self.assertAlmostEqual(pooled["gb_per_s"], 8 * n / 100e-6 / 1e9)


class Config(unittest.TestCase):
    # peers.toml's scan_f32 entry runs this harness and names the keys the
    # two programs write, with CUB as the ratio's reference.
    def test_the_entry_names_the_harness_and_keys(self):
        with open(os.path.join(HERE, "peers.toml"), "rb") as f:
            entry = tomllib.load(f)["scan_f32"]
        self.assertEqual(entry["harness"], "bash bench/peers/scan.sh")
        self.assertEqual(entry["reference"], "cub")
        keys = {p["key"] for p in entry["peer"]}
        self.assertEqual(keys, {"cub", "cub_i32", *sp.IMPLS})


@unittest.skipIf(torch is None, NO_TORCH)
class Check(unittest.TestCase):
    # A float32 scan of uniform [-1, 1) data is within the tolerance; one
    # element off by far more than rounding, or a NaN, is not.
    def test_the_check_passes_a_scan_and_fails_a_wrong_one(self):
        n = 1 << 16
        g = torch.Generator().manual_seed(1)
        x = torch.rand(n, generator=g, dtype=torch.float32) * 2 - 1
        y = torch.cumsum(x, 0)
        self.assertLessEqual(sp.scan_error(torch, x, y), sp.tolerance(n))
        wrong = y.clone()
        wrong[n // 2 :] += 1.0
        self.assertGreater(sp.scan_error(torch, x, wrong), sp.tolerance(n))
        hole = y.clone()
        hole[123] = float("nan")
        self.assertTrue(math.isinf(sp.scan_error(torch, x, hole)))


if __name__ == "__main__":
    main()
