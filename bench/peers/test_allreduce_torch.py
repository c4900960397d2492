"""Tests of allreduce_torch.py that need no GPU and no torch: run by
scripts/test. Its size lists, tolerance, bus bandwidth, repetitions and
figures must be the runner's (runner/core/src/allreduce/), so that its
lines compare with `cuda-runner allreduce`'s report."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
for _name in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
    os.environ.pop(_name, None)
os.environ["NCCL_NVLS_ENABLE"] = "1"  # importing the harness must override this
import allreduce_torch as at  # noqa: E402

U = 2.0 ** -24


class MulticastOff(unittest.TestCase):
    # Importing the harness switches NVLink multicast off before torch can
    # start NCCL, overriding a value that would switch it on.
    def test_import_sets_every_switch_off(self):
        self.assertEqual(os.environ["NCCL_NVLS_ENABLE"], "0")
        self.assertEqual(os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"], "1")
        self.assertEqual(os.environ["NVSHMEM_DISABLE_NVLS"], "1")

    # The pure helpers are importable without torch.
    def test_torch_is_not_imported_by_the_module(self):
        self.assertNotIn("torch", sys.modules)


class Sizes(unittest.TestCase):
    # The same spellings as the runner's --sizes.
    def test_byte_counts_read_like_the_runners(self):
        for text, want in [("1000", 1000), ("8B", 8), ("64KiB", 64 << 10), ("64k", 64 << 10),
                           ("256MiB", 256 << 20), ("4GiB", 4 << 30), ("2^20", 1 << 20)]:
            self.assertEqual(at.parse_bytes(text), want, text)
        with self.assertRaises(ValueError):
            at.parse_bytes("12 furlongs")

    # Ranges expand to powers of two; the default sweep is the runner's 8 B .. 4 GiB.
    def test_ranges_and_default_sweep(self):
        self.assertEqual(at.parse_sizes("8..64, 1000, 16"), [8, 16, 32, 64, 1000])
        self.assertEqual(len(at.parse_sizes("8..256MiB")), 26)
        sweep = at.default_sizes()
        self.assertEqual((sweep[0], sweep[-1], len(sweep)), (8, 4 << 30, 30))

    # Sizes that are not whole floats and bad ranges are refused.
    def test_bad_sizes_are_refused(self):
        for text in ["6", "0", "64..8", "8..100", " , "]:
            with self.assertRaises(ValueError, msg=text):
                at.parse_sizes(text)


class Figures(unittest.TestCase):
    # The tolerance is the runner's gamma(k - 1) k R: exact for one rank.
    def test_tolerance_is_the_runners(self):
        self.assertEqual(at.tolerance(1), 0.0)
        self.assertAlmostEqual(at.tolerance(2), 2 * U / (1 - U), delta=1e-20)
        self.assertAlmostEqual(at.tolerance(8), 56 * U / (1 - 7 * U), delta=1e-20)

    # nccl-tests' bus factor, 0 for one rank.
    def test_bus_factor(self):
        self.assertEqual([at.bus_factor(k) for k in (1, 2, 4, 8)], [0.0, 1.0, 1.5, 1.75])

    # About 200 us of all-reduces per sample, between 1 and 100.
    def test_reps_fill_the_sample_target(self):
        self.assertEqual(at.reps_for(10.0), 20)
        self.assertEqual(at.reps_for(0.5), 100)
        self.assertEqual(at.reps_for(5000.0), 1)
        self.assertEqual(at.reps_for(0.0), 100)

    # The spin outlasts the last sample's queueing twice over, never under 50 us.
    def test_sleep_covers_the_queueing(self):
        self.assertEqual(at.sleep_us_for(10.0), 50.0)
        self.assertEqual(at.sleep_us_for(400.0), 800.0)

    # A sample is as slow as its slowest rank; each rank keeps its median.
    def test_figures_use_the_slowest_rank(self):
        f = at.summarize([[10.0, 12.0], [11.0, 10.0], [10.0, 13.0]], 4, 1_000_000, 2)
        self.assertEqual((f["median_us"], f["min_us"], f["max_us"]), (12.0, 11.0, 13.0))
        self.assertEqual(f["per_rank_median_us"], [10.0, 12.0])
        self.assertAlmostEqual(f["algbw_gbs"], 1e6 / 12e-6 / 1e9)
        self.assertEqual(f["busbw_gbs"], f["algbw_gbs"])
        self.assertEqual(at.summarize([[10.0]], 1, 8, 1)["busbw_gbs"], 0.0)


if __name__ == "__main__":
    from unittest_main import main

    main()
