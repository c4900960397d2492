"""Tests of pool.py, the pooling of peer processes: run by scripts/test."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pool  # noqa: E402


def line(**fields):
    return json.dumps(fields)


class PoolTest(unittest.TestCase):
    # One slow process among three moves the pooled median by its share of
    # the samples, not to its own median.
    def test_median_is_over_all_samples(self):
        out = pool.pool(
            [
                line(impl="cub", n=16, times_us=[10, 10, 10]),
                line(impl="cub", n=16, times_us=[10, 10, 10]),
                line(impl="cub", n=16, times_us=[13, 13, 13]),
            ]
        )
        self.assertEqual(len(out), 1)
        r = out[0]
        self.assertEqual(r["median_us"], 10)
        self.assertEqual((r["min_us"], r["max_us"], r["samples"]), (10, 13, 9))
        self.assertEqual(r["processes"], 3)
        self.assertNotIn("times_us", r)
        self.assertAlmostEqual(r["gb_per_s"], 16 * 4 / 10e-6 / 1e9)

    # A failed check in any process fails the pooled line and keeps its error.
    def test_a_failed_process_fails_the_line(self):
        out = pool.pool(
            [
                line(impl="torch", n=8, times_us=[1.0], error=1e-9, got=1.0, **{"pass": True}),
                line(impl="torch", n=8, times_us=[1.0], error=0.5, got=9.0, **{"pass": False}),
            ]
        )
        self.assertFalse(out[0]["pass"])
        self.assertEqual((out[0]["error"], out[0]["got"]), (0.5, 9.0))

    # Meta lines are kept once per source, with the number of processes.
    def test_meta_lines_are_kept_once(self):
        out = pool.pool([line(impl="meta", source="cub_sum.cu")] * 3)
        self.assertEqual(out, [{"impl": "meta", "source": "cub_sum.cu", "pooled_processes": 3}])

    # Sizes and implementations stay apart, in the order first seen.
    def test_groups_by_impl_and_size(self):
        out = pool.pool(
            [
                line(impl="cub", n=16, times_us=[1.0]),
                line(impl="cub", n=64, times_us=[2.0]),
                line(impl="cupy", n=16, times_us=[3.0]),
                line(impl="cub", n=16, times_us=[1.0]),
            ]
        )
        self.assertEqual([(r["impl"], r["n"], r["samples"]) for r in out],
                         [("cub", 16, 2), ("cub", 64, 1), ("cupy", 16, 1)])


if __name__ == "__main__":
    from unittest_main import main

    main()
