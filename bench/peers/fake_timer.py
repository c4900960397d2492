"""A Timer of python_peers.py (or a subclass) whose CUDA calls only say what
they would queue, for the sample-order tests (test_histogram_peers.py,
test_transfer_peers.py), which need no GPU: each step appends its name to
a Log."""


class Log(list):
    def step(self, name):
        return lambda *args, **kwargs: self.append(name)


def fake_timer(cls, log, elapsed_ms=0.5):
    """An instance of `cls` (a python_peers.Timer) made without __init__:
    stream, events, runtime, flush, blocker and flag all fakes that log."""
    t = object.__new__(cls)

    class Stream:
        ptr = 1
        synchronize = log.step("sync")

    class Event:
        def __init__(self, name):
            self.record = log.step(name)

    class Runtime:
        def memsetAsync(self, ptr, value, n, stream):
            log.append("memset flush" if ptr == "flush" else "memset reset")

    class Cuda:
        @staticmethod
        def get_elapsed_time(a, b):
            return elapsed_ms

    class Cp:
        cuda = Cuda

    class Np:
        uint64 = int

    class Buffer:
        class data:
            ptr = "flush"

    t.cp, t.np, t.rt = Cp, Np, Runtime()
    t.stream, t.start, t.stop = Stream(), Event("start"), Event("stop")
    t.flush, t.flush_bytes, t.flush_value = Buffer, 1 << 28, 0
    t.out_stub = type("Stub", (), {"data": type("D", (), {"ptr": "stub"})})
    t.flag, t.flag_dev = [1, 0], 0
    t.blocker = log.step("blocker")
    return t
