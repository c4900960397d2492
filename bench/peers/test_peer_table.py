"""Tests of peer_table.py, the drivers' table (pooled.sh's peer_table), that
need no GPU: run by scripts/test. A cell is the median and GB/s with the
marks for noisy and failed lines; a size no line gives is '-'; rows are
2^k or plain n; the columns default to every implementation, sorted."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_table  # noqa: E402
from unittest_main import main  # noqa: E402

LINES = [
    json.dumps({"impl": "meta", "source": "cub_sum.cu", "gpu": "G", "torch": None}),
    json.dumps({"impl": "cub", "n": 1 << 20, "median_us": 10.5, "gb_per_s": 400.0, "pass": True}),
    json.dumps({"impl": "torch", "n": 1 << 20, "median_us": 12.0, "gb_per_s": None, "noisy": True}),
    json.dumps({"impl": "cub", "n": 1 << 22, "median_us": None, "pass": True}),
    "",
]


class Table(unittest.TestCase):
    def test_cells_marks_and_missing_sizes(self):
        got = peer_table.table(LINES, impls=["cub", "torch"], meta_keys=["source", "gpu", "torch"],
                               width=18, median="9.2f", gbs="4.0f")
        self.assertEqual(got, [
            "source=cub_sum.cu  gpu=G",
            "median cold time, us (GB/s); '*' noisy, '!' failed check",
            "     N                cub              torch",
            "2^20       10.50 ( 400)       12.00 (   0)*!",
            "2^22" + " " * 20 + "-" + " " * 18 + "-",
        ])

    def test_plain_sizes_and_every_impl_sorted(self):
        got = peer_table.table(LINES, label="bytes", label_width=11, plain_n=True,
                               title="median time, us (GB/s)")
        self.assertEqual(got[0], "median time, us (GB/s); '*' noisy, '!' failed check")
        self.assertEqual(got[1], f"{'bytes':>11} {'cub':>20} {'torch':>20}")
        self.assertTrue(got[2].startswith(f"{1 << 20:>11} "))


if __name__ == "__main__":
    main()
