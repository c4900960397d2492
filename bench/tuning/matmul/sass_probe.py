#!/usr/bin/env python3
"""A probe for tuning the matmul chapter's kernels without a GPU: compiles
a kernel file with NVRTC for sm_90 (the runner's options, plus -D for a
swept value) to a cubin, then prints each kernel's registers, spills and
shared memory (cuobjdump -res-usage) and, with --sass, counts of opcodes
in the SASS (nvdisasm). Not part of the book; scripts/sass makes the
listings the pages read.

Usage: sass_probe.py FILE.cu [-DNAME=VALUE ...] [--sass] [--dump]
Env: NVRTC (libnvrtc.so.13), SASS_TOOLS (folder with cuobjdump, nvdisasm).
"""
import collections
import ctypes
import os
import re
import subprocess
import sys
import tempfile

NVRTC = os.environ.get("NVRTC", "/work/main/.tools/nvrtc/nvidia/cu13/lib/libnvrtc.so.13")
TOOLS = os.environ.get("SASS_TOOLS", "/tmp/mm-sass/tools/nvidia/cu13/bin")


def compile_cubin(path, defines):
    lib = ctypes.CDLL(NVRTC)
    src = open(path, "rb").read()
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src, os.path.basename(path).encode(), 0, None, None)
    assert rc == 0, rc
    kernels = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "kernels")
    opts = ["-std=c++17", "-lineinfo", "-default-device", "--gpu-architecture=sm_90",
            f"-I{os.path.dirname(os.path.abspath(path))}", f"-I{os.path.abspath(kernels)}"] + defines
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if log.value.strip():
        print(log.value.decode(), file=sys.stderr)
    if rc != 0:
        sys.exit(f"compile failed ({rc})")
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetCUBIN(prog, cubin)
    return cubin.raw


def main():
    args = sys.argv[1:]
    path = args[0]
    defines = [a for a in args[1:] if a.startswith("-D")]
    cubin = compile_cubin(path, defines)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
        name = f.name
    res = subprocess.run([f"{TOOLS}/cuobjdump", "-res-usage", name], capture_output=True, text=True).stdout
    for line in res.splitlines():
        if "REG" in line or "Function" in line:
            print(line.strip())
    if "--sass" in args or "--dump" in args:
        sass = subprocess.run([f"{TOOLS}/nvdisasm", "-c", name], capture_output=True, text=True).stdout
        if "--dump" in args:
            print(sass)
        ops = collections.Counter()
        for line in sass.splitlines():
            m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
            if m:
                ops[m.group(1)] += 1
        for op, c in sorted(ops.items(), key=lambda x: -x[1])[:25]:
            print(f"  {op:<24}{c}")
    os.unlink(name)


if __name__ == "__main__":
    main()
