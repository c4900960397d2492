"""Runs torch.compile's kernel for one row-peer shape many times, so that
Nsight Compute can profile a launch after autotuning, and prints the
autotuned configs Inductor cached (XBLOCK, R0_BLOCK, num_warps, num_stages).

    ncu --launch-skip 40 --launch-count 1 -k regex:triton python3 inductor_profile.py layernorm_rows 4096
    python3 inductor_profile.py layernorm_rows 4096 --configs
"""
import glob
import json
import os
import sys

import torch
import torch.nn.functional as F


def main():
    problem, n = sys.argv[1], int(sys.argv[2])
    rows = (1 << 26) // n
    x = torch.randn(rows, n, device="cuda")
    if problem == "softmax_rows":
        fn = torch.compile(lambda x: torch.softmax(x, -1), dynamic=False)
        args = (x,)
    else:
        w = torch.randn(n, device="cuda")
        b = torch.randn(n, device="cuda")
        fn = torch.compile(lambda x, w, b: F.layer_norm(x, (n,), w, b, eps=1e-5), dynamic=False)
        args = (x, w, b)
    for _ in range(60):
        fn(*args)
    torch.cuda.synchronize()
    if "--configs" in sys.argv:
        root = os.environ.get("TORCHINDUCTOR_CACHE_DIR", f"/tmp/torchinductor_{os.environ.get('USER', 'root')}")
        for path in sorted(glob.glob(os.path.join(root, "**", "*.best_config"), recursive=True)):
            print(path, json.load(open(path)))


if __name__ == "__main__":
    main()
