#!/usr/bin/env python3
"""Lab tool (no GPU): compiles a kernel file with NVRTC for sm_90, as the
runner does (-std=c++17 -lineinfo -default-device, includes resolved under
kernels/), and prints its SASS through nvdisasm, or with --count an opcode
histogram per kernel. For looking at instruction counts while writing the
histogram kernels; the book's own listings come from scripts/sass.

Usage: python3 bench/tuning/histogram/sass.py kernels/histogram/x.cu [-D NAME=V] [--count]
"""
import argparse
import collections
import ctypes
import os
import re
import subprocess
import sys
import tempfile

TOOLS = "/work/main/.tools"
NVRTC = f"{TOOLS}/nvrtc/nvidia/cu13/lib/libnvrtc.so.13"
NVDISASM = f"{TOOLS}/sass/nvidia/cu13/bin/nvdisasm"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def compile_cubin(path, defines):
    lib = ctypes.CDLL(NVRTC)
    src = open(path, "rb").read()
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src, path.encode(), 0, None, None)
    assert rc == 0, rc
    opts = ["-arch=sm_90", "-std=c++17", "-lineinfo", "-default-device",
            f"--include-path={os.path.dirname(os.path.abspath(path))}",
            f"--include-path={ROOT}/kernels"] + [f"-D{d}" for d in defines]
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if log.value.strip():
        print(log.value.decode(), file=sys.stderr)
    if rc != 0:
        sys.exit("compile failed")
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetCUBIN(prog, cubin)
    return cubin.raw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("-D", action="append", default=[])
    ap.add_argument("--count", action="store_true")
    args = ap.parse_args()
    cubin = compile_cubin(args.file, args.D)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        text = subprocess.run([NVDISASM, "-c", f.name], capture_output=True, text=True, check=True).stdout
    if not args.count:
        print(text)
        return
    kernel, counts = None, collections.OrderedDict()
    for line in text.splitlines():
        m = re.match(r"\s*\.text\.(\S+):", line)
        if m:
            kernel = m.group(1)
            counts[kernel] = collections.Counter()
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and kernel:
            op = m.group(1)
            if op not in ("NOP",):
                counts[kernel][op] += 1
    for k, c in counts.items():
        print(f"{k}: {sum(c.values())} instructions")
        for op, n in sorted(c.items()):
            print(f"  {op:<28} {n}")


if __name__ == "__main__":
    main()
