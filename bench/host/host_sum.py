"""The host side of a sum kernel in Python, with CuPy:

    python3 host_sum.py KERNEL_FILE KERNEL N GRID BLOCK SHARED_BYTES

CuPy compiles the kernel file the page shows with NVRTC (RawKernel), fills
N floats in [0, 1), launches KERNEL(x, out, n) once with the given grid,
block and dynamic shared memory, and compares the float sum with a double
sum on the CPU.
"""
import math
import os
import sys

import cupy as cp
import numpy as np


def main(path, kernel, n, grid, block, shared):
    source = open(path).read()
    folder = os.path.dirname(os.path.abspath(path))
    sum_kernel = cp.RawKernel(source, kernel, options=("-std=c++17", f"-I{folder}"))

    rng = np.random.default_rng(2026)
    x_host = rng.random(n, dtype=np.float32)
    expected = float(x_host.astype(np.float64).sum())

    x = cp.asarray(x_host)
    out = cp.zeros(1, dtype=cp.float32)  # kernels that add into out start from 0
    sum_kernel((grid,), (block,), (x, out, np.uint32(n)), shared_mem=shared)
    got = float(out.get()[0])

    # The book's tolerance for a float sum (values in [0, 1), so relative
    # to the sum itself): 4 sqrt(n) units of roundoff, u = 2^-24.
    rel = abs(got - expected) / expected
    tol = 4.0 * math.sqrt(n) * 2.0**-24
    verdict = "right" if rel <= tol else "WRONG"
    print(f"sum {got:.6f}, double sum on the CPU {expected:.6f}, "
          f"relative error {rel:.2e} (tolerance {tol:.2e}): {verdict}")
    return 0 if rel <= tol else 1


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    path, kernel, *numbers = sys.argv[1:]
    sys.exit(main(path, kernel, *map(int, numbers)))
