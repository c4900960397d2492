"""Compile every kernels/disguise/*.cu with the pinned NVRTC 13 (no GPU needed).

Same options as the runner: sm_90, C++17, -lineinfo, -default-device,
--no-source-include. Prints NVRTC's log; register and spill counts come
from check.py on the GPU machine.
"""
import ctypes, glob, os, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
libdir = os.path.join(root, ".tools/nvrtc/nvidia/cu13/lib")
# NVRTC dlopens its builtins by soname; loading them first by path means
# no LD_LIBRARY_PATH is needed.
ctypes.CDLL(os.path.join(libdir, "libnvrtc-builtins.so.13.0"), mode=ctypes.RTLD_GLOBAL)
lib = ctypes.CDLL(os.path.join(libdir, "libnvrtc.so.13"))

def compile_one(path, extra=()):
    src = open(path, "rb").read()
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src, os.path.basename(path).encode(), 0, None, None)
    assert rc == 0, rc
    opts = [b"--gpu-architecture=sm_90", b"-std=c++17", b"-lineinfo", b"-default-device",
            b"--no-source-include"] + [o.encode() for o in extra]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, buf)
    log = buf.value.decode(errors="replace").strip()
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return rc, log

if __name__ == "__main__":
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(root, "kernels/disguise/*.cu")))
    bad = 0
    for f in files:
        rc, log = compile_one(f)
        print(("OK  " if rc == 0 else "FAIL"), os.path.relpath(f, root))
        if log:
            print("   ", log.replace("\n", "\n    "))
        bad += rc != 0
    sys.exit(1 if bad else 0)
