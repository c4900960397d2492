"""Tests of transfer_peers.py that need no GPU: run by scripts/test. A fake
CuPy records what each sample queues, so the order the runner's transfer
method prescribes (destination poisoned, L2 flushed, the blocker for pinned
copies only, two events around the copy) is held without a device."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transfer_peers as tp  # noqa: E402
from fake_timer import Log, fake_timer as fake_timer_of  # noqa: E402


def fake_timer(log):
    """A TransferTimer whose CUDA calls only say what they would queue."""
    t = fake_timer_of(tp.TransferTimer, log)
    t.poison = log.step("poison")
    t.blocked = True
    return t


class SampleOrder(unittest.TestCase):
    # A pinned copy: poisoned, reset, flushed, then queued behind the
    # blocker between the two events, and the blocker released.
    def test_pinned_copies_are_blocked(self):
        log = Log()
        t = fake_timer(log)
        us, timed_out = t.one_cold(log.step("copy"))
        self.assertEqual(log, ["poison", "memset reset", "memset flush", "blocker", "start", "copy", "stop", "sync"])
        self.assertEqual((us, timed_out), (500.0, False))
        self.assertEqual(t.flag[0], 1, "the blocker is released")

    # A pageable copy: poisoned and flushed, but never behind the blocker,
    # which the driver's wait inside the call would never let finish.
    def test_pageable_copies_are_not_blocked(self):
        log = Log()
        t = fake_timer(log)
        t.blocked = False
        us, _ = t.one_cold(log.step("copy"))
        self.assertEqual(log, ["poison", "memset flush", "start", "copy", "stop", "sync"])
        self.assertEqual(us, 500.0)


class Sizes(unittest.TestCase):
    # The default sizes are the host-device examples' sizes, and read back
    # in their words.
    def test_sizes_match_the_examples(self):
        self.assertEqual([tp.size_text(n) for n in tp.SIZES], ["4 KiB", "1 MiB", "64 MiB", "1 GiB"])
        here = os.path.dirname(os.path.abspath(__file__))
        header = open(os.path.join(here, "..", "..", "kernels", "host-device", "h2d_pinned.cu")).read()
        self.assertIn('sizes = ["4KiB", "1MiB", "64MiB", "1GiB"]', header)
        self.assertEqual(tp.size_text(1000), "1000 B")


if __name__ == "__main__":
    unittest.main()
