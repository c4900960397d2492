"""Conformance of the Python stop rule (method.py): the canned streams of
conformance/streams.txt give the verdicts of conformance/expected.txt, as
they do for the Rust rule (a unit test of runner/core/src/method.rs) and
the C++ one (conformance/replay.cpp). Run by scripts/test."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import method  # noqa: E402


def replay(streams):
    out = []
    for line in streams.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, body = line.split(" : ", 1)
        f = head.split()
        p = method.Policy(
            min_samples=int(f[1]),
            target_noise=float(f[2]),
            min_gpu_s=float(f[3]),
            timeout_s=float(f[4]),
            max_wall_s=float(f[5]),
            max_samples=int(f[6]),
        )
        times, history, verdict = [], [], None
        for sample in body.split():
            t, elapsed = (float(x) for x in sample.split("@"))
            times.append(t)
            history.append(method.rel_stdev(times))
            verdict = method.stop_after(p, history, sum(times) / 1e6, elapsed)
            if verdict is not None:
                break
        if verdict is None:
            out.append(f"{f[0]} never")
        else:
            noisy = "noisy" if verdict else "quiet"
            out.append(f"{f[0]} stop {len(times)} {noisy} median {method.median(times):.3f}")
    return "\n".join(out) + "\n"


class ConformanceTest(unittest.TestCase):
    # Every canned stream stops where, and as, the committed file says.
    def test_the_stop_rule_matches_the_conformance_file(self):
        with open(os.path.join(HERE, "conformance", "streams.txt")) as f:
            streams = f.read()
        with open(os.path.join(HERE, "conformance", "expected.txt")) as f:
            expected = f.read()
        self.assertEqual(replay(streams), expected)

    # The share of one of eight processes splits GPU time, time-out and cap.
    def test_share_splits_the_budget(self):
        p = method.POLICY.share(8)
        self.assertEqual((p.min_gpu_s, p.timeout_s, p.max_samples), (0.0125, 0.375, 250))


if __name__ == "__main__":
    from unittest_main import main

    main()
