"""Tests of the byte histogram's peers (histogram_peers.py, cub_histogram.cu,
histogram.sh) that need no GPU: run by scripts/test. The sizes, byte counts
and the sample order always run, as does the agreement of both harnesses
with the book's problem and peers.toml; the torch input generator runs on
CPU tensors where torch imports, and is skipped (saying so) where it does
not."""
import os
import re
import sys
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import histogram_peers as hp  # noqa: E402
from fake_timer import Log, fake_timer  # noqa: E402
from unittest_main import main  # noqa: E402

try:
    import torch
except ImportError:  # only a missing library skips; a broken one fails
    torch = None
NO_TORCH = "torch is not installed here: the histogram peers' input generator is not tested"

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


class Sizes(unittest.TestCase):
    # Sizes are log2 byte counts, as the chapter's examples declare them.
    def test_sizes_are_powers_of_two(self):
        self.assertEqual(hp.sizes_of("28,20"), [1 << 20, 1 << 28])

    # The default sizes are those of the kernels the comparison takes, in
    # both harnesses (histogram.sh passes its SIZES to both programs).
    def test_default_sizes_match_the_examples(self):
        header = read("kernels", "histogram", "tuned.cu")
        self.assertIn('sizes = ["2^20", "2^24", "2^28"]', header)
        self.assertEqual(hp.DEFAULT_SIZES, "20,24,28")
        self.assertIn("sizes=${SIZES:-20,24,28}", read("bench", "peers", "histogram.sh"))
        self.assertIn('"--sizes", "20,24,28"', read("bench", "peers", "cub_histogram.cu"))

    # The input once and 256 four-byte bins once: the problem's `n + 1024`,
    # the bytes cub_histogram.cu writes in its lines too.
    def test_bytes_are_the_problems(self):
        self.assertEqual(hp.bytes_moved(1 << 28), (1 << 28) + 1024)
        rust = read("runner", "core", "src", "problem", "histogram_u8.rs")
        self.assertIn("instance.shape.elements() + 4 * BINS as u64", rust)
        self.assertIn("double(n) + 4.0 * kBins", read("bench", "peers", "cub_histogram.cu"))


class Inputs(unittest.TestCase):
    # The skewed share is the problem's, in both harnesses: 7/8 of the
    # bytes 0 (the C++ draw keeps a byte when its draw's top three bits
    # are all set, 1 time in 8).
    def test_the_skew_is_the_problems(self):
        rust = read("runner", "core", "src", "problem", "histogram_u8.rs")
        share = float(re.search(r"pub const SKEWED_SHARE: f64 = ([0-9.]+);", rust).group(1))
        value = int(re.search(r"pub const SKEWED_VALUE: u64 = ([0-9]+);", rust).group(1))
        self.assertEqual((share, value), (hp.SKEWED_SHARE, 0))
        self.assertEqual(1 - 1 / 8, share)
        self.assertIn("if (skewed && (z >> 61) != 7) return 0;", read("bench", "peers", "cub_histogram.cu"))

    # On CPU tensors: uniform bytes fill every bin about equally, skewed
    # ones give 0 about 7/8 of them (plus its share of the rest).
    @unittest.skipIf(torch is None, NO_TORCH)
    def test_torch_draws_the_problems_distributions(self):
        n = 1 << 18
        uniform = torch.bincount(hp.draw(torch, "histogram_u8", n, 1, device="cpu"), minlength=256)
        self.assertEqual(int(uniform.sum()), n)
        self.assertTrue(bool(((uniform > 0.8 * n / 256) & (uniform < 1.2 * n / 256)).all()))
        skewed = hp.draw(torch, "histogram_u8_skewed", n, 1, device="cpu")
        self.assertEqual(skewed.dtype, torch.uint8)
        zero = float((skewed == 0).float().mean())
        self.assertAlmostEqual(zero, 0.875 + 0.125 / 256, delta=0.005)


class SampleOrder(unittest.TestCase):
    # torch.bincount waits for the stream inside the call, so its sample is
    # the runner's unblocked one: reset, flush, start, the call, stop, sync;
    # no blocking kernel, which the call's own wait would never release.
    def test_bincount_is_timed_without_the_blocker(self):
        log = Log()
        t = fake_timer(hp.UnblockedTimer, log, elapsed_ms=0.25)
        us, timed_out = t.one_cold(log.step("bincount"))
        self.assertEqual(log, ["memset reset", "memset flush", "start", "bincount", "stop", "sync"])
        self.assertEqual((us, timed_out), (250.0, False))


class PeersList(unittest.TestCase):
    # peers.toml's two histogram entries run this harness on their own
    # problem, compare against CUB, and name kernels the book has, each on
    # the entry's input (the skewed entry's kernels are the _skewed twins).
    def test_entries_name_the_harness_and_the_kernels(self):
        with open(os.path.join(HERE, "peers.toml"), "rb") as f:
            config = tomllib.load(f)
        for problem in hp.PROBLEMS:
            entry = config[problem]
            self.assertEqual(entry["harness"], f"bash bench/peers/histogram.sh {problem}")
            self.assertEqual(entry["reference"], "cub")
            self.assertEqual([p["key"] for p in entry["peer"]], ["cub", "torch_bincount"])
            for example in entry["ours"]:
                header = read("kernels", example + ".cu")
                self.assertIn(f'problem = "{problem}"', header, example)


if __name__ == "__main__":
    main()
