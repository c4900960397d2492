"""Runs the book's fast_reduce and CUB (through cupy.sum, which dispatches to
CUB's DeviceReduce) once each at N = 2^30 so that Nsight Compute can read
their counters. Not a timing tool: the times on the book's pages come from
the runner. Usage (on the GPU machine):

    ncu --clock-control none --csv --metrics <list> python3 bench/peers/profile.py
"""

import pathlib

import cupy

N = 1 << 30
ROOT = pathlib.Path(__file__).resolve().parents[2]

source = (ROOT / "kernels/reductions/fast_reduce.cu").read_text()
module = cupy.RawModule(code=source, options=("-std=c++17",), name_expressions=None)
reduce_fast = module.get_function("reduce_fast")
sms = cupy.cuda.Device().attributes["MultiProcessorCount"]

x = cupy.random.default_rng(1).random(N, dtype=cupy.float32)
out = cupy.zeros(1, dtype=cupy.float32)
grid = min((N + 4095) // 4096, 1 << ((sms * 2).bit_length() - 1))  # pow2_floor(sms * 2), as the header says
reduce_fast((grid,), (1024,), (x, out, cupy.uint32(N)))
total = cupy.sum(x)
cupy.cuda.Device().synchronize()
ref = float(cupy.sum(x, dtype=cupy.float64))
print(f"fast_reduce {float(out[0]):.1f}  cupy.sum {float(total):.1f}  float64 {ref:.1f}")
