"""Tests of rows_peers.py, the row problems' peers, that need no GPU: run by
scripts/test. The tolerances, byte counts and the plain-Python checks always
run; the torch checks and the input generators run on CPU tensors where
torch imports, and are skipped (saying so) only where it does not."""
import json
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pool  # noqa: E402
import rows_peers as rp  # noqa: E402

try:
    import torch
except ImportError:  # only a missing library skips; a broken one fails
    torch = None
NO_TORCH = "torch is not installed here: the torch checks and the input generators are not tested"

U = 2.0 ** -24


def softmax_rows_py(x):
    out = []
    for r in x:
        m = max(r)
        e = [math.exp(v - m) for v in r]
        s = math.fsum(e)
        out.append([v / s for v in e])
    return out


def layernorm_rows_py(x, w, b, eps=rp.EPS):
    out = []
    for r in x:
        n = len(r)
        mean = math.fsum(r) / n
        var = math.fsum((v - mean) ** 2 for v in r) / n
        rstd = 1.0 / math.sqrt(var + eps)
        out.append([(v - mean) * rstd * wv + bv for v, wv, bv in zip(r, w, b)])
    return out


def small_softmax_input(rows=4, n=64, seed=3):
    g = random.Random(seed)
    return [[c + g.uniform(-8, 8) for _ in range(n)] for c in (g.uniform(50, 100) for _ in range(rows))]


def small_layernorm_input(rows=4, n=64, seed=3):
    g = random.Random(seed)
    x = [[c + g.uniform(-1, 1) for _ in range(n)] for c in (g.uniform(250, 1000) for _ in range(rows))]
    w = [g.uniform(0.5, 1.5) for _ in range(n)]
    b = [g.uniform(-0.5, 0.5) for _ in range(n)]
    return x, w, b


class Tolerances(unittest.TestCase):
    # The bounds the brief gives, in units of float32's 2^-24.
    def test_float32_bounds(self):
        self.assertEqual(rp.softmax_tolerance(1024), (8 + 4 * 32) * U)
        self.assertEqual(rp.layernorm_tolerance(1 << 16), (16 + 4 * 256) * U)

    # bf16 adds its output's rounding to 8 significant bits, 2^-8 relative,
    # as the runner's checks do.
    def test_bf16_adds_its_rounding(self):
        self.assertEqual(rp.softmax_tolerance(1024, "bf16") - rp.softmax_tolerance(1024), 2.0 ** -8)
        self.assertEqual(rp.layernorm_tolerance(1024, "bf16") - rp.layernorm_tolerance(1024), 2.0 ** -8)

    # x read and y written once; layer_norm also reads weight and bias.
    def test_bytes(self):
        m, n = 1 << 16, 1 << 10
        self.assertEqual(rp.bytes_moved("softmax_rows", m, n, "f32"), 2 * m * n * 4)
        self.assertEqual(rp.bytes_moved("layernorm_rows", m, n, "f32"), 2 * m * n * 4 + 2 * n * 4)
        self.assertEqual(rp.bytes_moved("layernorm_rows", m, n, "bf16"), 2 * m * n * 2 + 2 * n * 2)


class PlainChecks(unittest.TestCase):
    # The exact answer passes with error 0; one rounding to float32 of every
    # element stays far inside the bound; a 1e-4 relative slip fails.
    def test_softmax(self):
        x = small_softmax_input()
        y = softmax_rows_py(x)
        self.assertEqual(rp.softmax_errors_py(x, y), 0.0)
        rounded = [[v * (1 + U) for v in r] for r in y]
        self.assertLess(rp.softmax_errors_py(x, rounded), 2 * U)
        bad = [list(r) for r in y]
        bad[2][5] *= 1 + 1e-4
        self.assertGreater(rp.softmax_errors_py(x, bad), rp.softmax_tolerance(64))
        bad[2][5] = float("nan")
        self.assertEqual(rp.softmax_errors_py(x, bad), math.inf)

    # The error is measured against scale_r |w_j|, so an error of a few
    # ulps of |mean| rstd passes and a wrong bias fails.
    def test_layernorm(self):
        x, w, b = small_layernorm_input()
        y = layernorm_rows_py(x, w, b)
        self.assertEqual(rp.layernorm_errors_py(x, y, w, b), 0.0)
        mean = math.fsum(x[0]) / len(x[0])
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in x[0]) / len(x[0]))
        ulp_of_mean_normalised = 4 * abs(mean) * U / sd  # what rounding x can cost
        near = [list(r) for r in y]
        near[0][7] += ulp_of_mean_normalised * w[7]
        self.assertLess(rp.layernorm_errors_py(x, near, w, b), rp.layernorm_tolerance(64))
        far = [list(r) for r in y]
        far[1][3] += 0.01
        self.assertGreater(rp.layernorm_errors_py(x, far, w, b), rp.layernorm_tolerance(64))


class PoolRowLines(unittest.TestCase):
    # GB/s of a row problem's pooled line is its own `bytes` over the median.
    def test_gb_per_s_uses_bytes(self):
        line = {"impl": "torch", "n": 1024, "rows": 65536, "bytes": 1 << 29, "times_us": [100.0, 100.0]}
        out = pool.pool([json.dumps(line)])
        self.assertAlmostEqual(out[0]["gb_per_s"], (1 << 29) / 100e-6 / 1e9)


@unittest.skipIf(torch is None, NO_TORCH)
class TorchChecks(unittest.TestCase):
    # The torch checks give what the plain-Python definitions give.
    def test_softmax_matches_the_definition(self):
        x = small_softmax_input()
        xt = torch.tensor(x, dtype=torch.float32)
        yt = torch.softmax(xt, -1)
        got = rp.softmax_error(torch, xt, yt)
        want = rp.softmax_errors_py(xt.double().tolist(), yt.double().tolist())
        self.assertAlmostEqual(got, want, delta=1e-3 * U)
        self.assertLess(got, rp.softmax_tolerance(64))
        yt[1, 1] = float("nan")
        self.assertEqual(rp.softmax_error(torch, xt, yt), math.inf)

    def test_layernorm_matches_the_definition(self):
        x, w, b = small_layernorm_input()
        xt, wt, bt = (torch.tensor(v, dtype=torch.float32) for v in (x, w, b))
        yt = torch.nn.functional.layer_norm(xt, (64,), wt, bt, eps=rp.EPS)
        got = rp.layernorm_error(torch, xt, yt, wt, bt)
        want = rp.layernorm_errors_py(xt.double().tolist(), yt.double().tolist(), w=wt.double().tolist(),
                                      b=bt.double().tolist())
        self.assertAlmostEqual(got, want, delta=1e-3 * U)
        self.assertLess(got, rp.layernorm_tolerance(64))

    # The inputs follow the book's distributions: offsets per row spread over
    # their range, the per-element part inside its own.
    def test_softmax_input(self):
        d = rp.make_rows(torch, "softmax_rows", "f32", 2048, 256, seed=5, device="cpu")
        x, c = d["x"], d["c"]
        self.assertEqual((x.shape, x.dtype), ((2048, 256), torch.float32))
        self.assertTrue(bool((c >= 50).all() and (c < 100).all()))
        self.assertLess(c.min().item(), 51)
        self.assertGreater(c.max().item(), 99)
        u = x - c
        self.assertTrue(bool((u >= -8 - 1e-4).all() and (u <= 8 + 1e-4).all()))
        self.assertLess(abs(u.mean().item()), 0.05)
        self.assertAlmostEqual(u.std().item(), 16 / math.sqrt(12), delta=0.05)

    def test_layernorm_input(self):
        d = rp.make_rows(torch, "layernorm_rows", "f32", 2048, 256, seed=5, device="cpu")
        x, c, w, b = d["x"], d["c"], d["w"], d["b"]
        self.assertTrue(bool((c >= 250).all() and (c < 1000).all()))
        self.assertLess(c.min().item(), 252)
        self.assertGreater(c.max().item(), 998)
        u = x - c
        self.assertTrue(bool((u >= -1 - 1e-3).all() and (u <= 1 + 1e-3).all()))
        self.assertAlmostEqual(u.std().item(), 2 / math.sqrt(12), delta=0.01)
        self.assertTrue(bool((w >= 0.5).all() and (w < 1.5).all() and (b >= -0.5).all() and (b < 0.5).all()))
        d16 = rp.make_rows(torch, "layernorm_rows", "bf16", 64, 256, seed=5, device="cpu")
        self.assertEqual(d16["x"].dtype, torch.bfloat16)
        # bf16 offsets are the runner's U[-2, 2), and rows keep their spread
        # (the float32 offsets would round it away).
        self.assertTrue(bool((d16["c"] >= -2).all() and (d16["c"] < 2).all()))
        self.assertGreater(d16["x"].float().std(dim=-1).min().item(), 0.4)

    # The same seed gives the same input.
    def test_inputs_are_reproducible(self):
        a = rp.make_rows(torch, "softmax_rows", "f32", 8, 64, seed=9, device="cpu")["x"]
        b = rp.make_rows(torch, "softmax_rows", "f32", 8, 64, seed=9, device="cpu")["x"]
        self.assertTrue(torch.equal(a, b))

    # torch's own float32 answers pass the checks at a size of the sweep's
    # row length on small row counts (eager, CPU).
    def test_torch_cpu_answers_pass(self):
        n = 1 << 10
        d = rp.make_rows(torch, "softmax_rows", "f32", 16, n, seed=2, device="cpu")
        self.assertLessEqual(rp.softmax_error(torch, d["x"], torch.softmax(d["x"], -1)), rp.softmax_tolerance(n))
        d = rp.make_rows(torch, "layernorm_rows", "f32", 16, n, seed=2, device="cpu")
        y = torch.nn.functional.layer_norm(d["x"], (n,), d["w"], d["b"], eps=rp.EPS)
        self.assertLessEqual(rp.layernorm_error(torch, d["x"], y, d["w"], d["b"]), rp.layernorm_tolerance(n))


if __name__ == "__main__":
    from unittest_main import main

    main()
