"""Writes the Triton code Inductor generates for the row problems' peers
(the same calls as bench/peers/rows_peers.py: torch.softmax(x, -1) and
F.layer_norm(x, (n,), w, b, eps=1e-5), fp32, M x N = 2^26, dynamic=False),
so our kernels can be read against the launch shape torch.compile picks.

    python3 inductor_code.py OUTDIR [problem:n ...]

Default shapes: softmax_rows:1024 layernorm_rows:1024 layernorm_rows:4096.
One file per shape, OUTDIR/<problem>-<n>.py, holding every source Inductor
produced for it (the wrapper names the grid and the kernels' configs).
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch._inductor.utils import run_and_get_code

EPS = 1e-5


def main():
    out = sys.argv[1]
    shapes = sys.argv[2:] or ["softmax_rows:1024", "layernorm_rows:1024", "layernorm_rows:4096"]
    os.makedirs(out, exist_ok=True)
    for shape in shapes:
        problem, n = shape.split(":")
        n = int(n)
        rows = (1 << 26) // n
        x = torch.randn(rows, n, device="cuda")
        torch._dynamo.reset()
        if problem == "softmax_rows":
            fn = torch.compile(lambda x: torch.softmax(x, -1), dynamic=False)
            args = (x,)
        else:
            w = torch.randn(n, device="cuda")
            b = torch.randn(n, device="cuda")
            fn = torch.compile(lambda x, w, b: F.layer_norm(x, (n,), w, b, eps=EPS), dynamic=False)
            args = (x, w, b)
        _, sources = run_and_get_code(fn, *args)
        path = os.path.join(out, f"{problem}-{n}.py")
        with open(path, "w") as f:
            f.write(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}\n")
            for i, src in enumerate(sources):
                f.write(f"# ===== source {i} =====\n{src}\n")
        print(path)


if __name__ == "__main__":
    main()
