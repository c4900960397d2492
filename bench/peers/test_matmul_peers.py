"""Tests of matmul_peers.py that need no GPU: the sizes it times, keyed as
the book's matmul_f32 records key them, the work and bytes it counts, and
the rows and columns its check samples, as the runner's problem does; the
check itself where torch imports (on the CPU)."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matmul_peers  # noqa: E402
from unittest_main import main  # noqa: E402

try:
    import torch
except Exception:  # noqa: BLE001 (any import failure means: no torch here)
    torch = None


class Sizes(unittest.TestCase):
    # Square sizes, as the chapter's examples declare them ("M = N = K = 4096").
    def test_sizes_are_cubes(self):
        self.assertEqual(matmul_peers.shapes("2048,4096"), [(2048, 2048, 2048), (4096, 4096, 4096)])

    # The default sizes are the fast examples' (kernels/matmul/*.cu).
    def test_default_sizes_match_the_examples(self):
        self.assertEqual(matmul_peers.DEFAULT_SIZES, "2048,4096,8192")

    # Bytes and FLOP as the problem counts them (matmul_f32.rs: bytes, work).
    def test_bytes_and_work(self):
        self.assertEqual(matmul_peers.bytes_of(2, 3, 5), 4 * (2 * 5 + 5 * 3 + 2 * 3))
        self.assertEqual(matmul_peers.flop_of(4096, 4096, 4096), 2 * 4096**3)


class Sampling(unittest.TestCase):
    # Every 31st row from row 3, so that any 32 consecutive rows hold one
    # (the runner's `sampled`), and the last row alone for 3 rows or fewer.
    def test_any_32_consecutive_hold_a_sampled_one(self):
        for count in (1, 2, 3, 4, 33, 100, 4096):
            rows = matmul_peers.sampled(count)
            self.assertTrue(all(0 <= r < count for r in rows))
            for start in range(0, max(count - 31, 1)):
                window = range(start, min(start + 32, count))
                if len(window) == 32:
                    self.assertTrue(any(r in window for r in rows), (count, start))
        self.assertEqual(matmul_peers.sampled(3), [2])
        self.assertEqual(matmul_peers.sampled(4096)[:3], [3, 34, 65])
        self.assertEqual(len(matmul_peers.sampled(4096)), 133)

    # The problem's tolerance: (4 sqrt(K) + 8) 2^-24.
    def test_tolerance(self):
        self.assertAlmostEqual(matmul_peers.tolerance(4096), (4 * 64 + 8) / 2**24)


@unittest.skipIf(torch is None, "torch is not installed here (matmul_peers.py's check needs it)")
class Check(unittest.TestCase):
    def inputs(self, m, n, k):
        g = torch.Generator().manual_seed(5)
        a = torch.rand((m, k), generator=g) * 2 - 1
        b = torch.rand((k, n), generator=g) * 2 - 1
        return a, b

    # A float32 product passes; one sampled element off by a product fails;
    # a NaN fails; products of inputs rounded to TF32 fail at small K.
    def test_check(self):
        a, b = self.inputs(100, 70, 64)
        c = a @ b
        self.assertLessEqual(matmul_peers.worst_error(torch, a, b, c), matmul_peers.tolerance(64))
        off = c.clone()
        off[3, 5] += 1.0
        self.assertGreater(matmul_peers.worst_error(torch, a, b, off), matmul_peers.tolerance(64))
        nan = c.clone()
        nan[34, 0] = float("nan")
        self.assertTrue(math.isnan(matmul_peers.worst_error(torch, a, b, nan)))

        def tf32(x):  # round to 10 stored mantissa bits
            bits = x.view(torch.int32)
            return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)

        rounded = tf32(a) @ tf32(b)
        self.assertGreater(matmul_peers.worst_error(torch, a, b, rounded), matmul_peers.tolerance(64))


if __name__ == "__main__":
    main()
