"""The measuring method's statistics and stop rule, as the runner has them
(runner/core/src/method.rs), for python_peers.py; the conformance test
(test_method.py, run by scripts/test) holds them to the same verdicts as
the Rust and C++ rules."""
import math
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Policy:
    """The sampling policy (the runner's Policy); POLICY's values."""

    min_samples: int = 10
    target_noise: float = 0.005  # relative stdev that ends sampling
    min_gpu_s: float = 0.1  # GPU time needed before either rule may stop
    timeout_s: float = 3.0  # wall time, then labelled noisy
    max_wall_s: float = 12.0  # not split: past it, stop even short of min_samples
    max_samples: int = 2000

    def share(self, processes):
        """One of `processes` processes: 1/P of GPU time, time-out, sample cap."""
        return replace(
            self,
            min_gpu_s=self.min_gpu_s / processes,
            timeout_s=self.timeout_s / processes,
            max_samples=max(self.min_samples, self.max_samples // processes),
        )


POLICY = Policy()


def median(v):
    if not v:
        return 0.0
    s = sorted(v)
    m = len(s) // 2
    return s[m] if len(s) % 2 == 1 else (s[m - 1] + s[m]) / 2.0


def rel_stdev(v):
    """Sample standard deviation over mean (0 for fewer than two values)."""
    if len(v) < 2:
        return 0.0
    mean = sum(v) / len(v)
    var = sum((x - mean) ** 2 for x in v) / (len(v) - 1)
    return math.sqrt(var) / mean if mean > 0.0 else 0.0


def noise_settled(history):
    """Over the last quarter of the samples the noise moved by < 1%."""
    n = len(history)
    back = history[n - n // 4 - 1]
    now = history[n - 1]
    return now > 0.0 and abs((back - now) / now) < 0.01


def stop_after(p, history, gpu_s, elapsed):
    """After each kept sample: None to go on, else whether the figure is noisy."""
    n = len(history)
    noise = history[-1] if history else 0.0
    if n >= p.min_samples:
        enough_time = gpu_s >= p.min_gpu_s
        if enough_time and noise <= p.target_noise:
            return False
        if enough_time and n >= 4 * p.min_samples and noise_settled(history):
            return False
        if n >= p.max_samples:
            return False
        if elapsed > p.timeout_s:
            return noise > p.target_noise
    return True if elapsed > p.max_wall_s else None
