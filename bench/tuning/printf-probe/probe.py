# Why a kernel that prints a line per element timed out: is device printf
# slow, or does a launch of a printing kernel wait behind the blocker?
import time, sys, os, cupy as cp
src = r'''
extern "C" __global__ void spin(volatile int* flag, unsigned long long timeout_ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flag[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) { flag[1] = 1; break; }
    }
}
extern "C" __global__ void prints(const float* x, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { printf("x[%u] = %f\n", i, x[i]); atomicAdd(out, x[i]); }
}
extern "C" __global__ void quiet(const float* x, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { atomicAdd(out, x[i]); }
}
'''
fifo = int(sys.argv[1]) if len(sys.argv) > 1 else 0
if fifo:
    cp.cuda.runtime.deviceSetLimit(0x01, fifo)  # cudaLimitPrintfFifoSize
print(f"printf FIFO: {cp.cuda.runtime.deviceGetLimit(0x01)} bytes", file=sys.stderr)
m = cp.RawModule(code=src)
spin, prints, quiet = m.get_function("spin"), m.get_function("prints"), m.get_function("quiet")
n = 1 << 20
x = cp.ones(n, dtype=cp.float32); out = cp.zeros(1, dtype=cp.float32)
flag_host = cp.cuda.alloc_pinned_memory(8)
import numpy as np
flag = np.frombuffer(flag_host, dtype=np.int32, count=2)
flag_dev = flag_host.ptr  # unified addressing: pinned memory is mapped at the same address
def log(*a): print(*a, file=sys.stderr, flush=True)
for name, k in [("quiet", quiet), ("prints", prints)]:
    for m_ in (1 << 10, 1 << 16, 1 << 20):
      for rep in range(2):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        t0 = time.perf_counter(); s.record(); k(((m_ + 255) // 256,), (256,), (x, out, cp.uint32(m_))); e.record(); e.synchronize()
        log(f"{name} n={m_} alone: gpu {cp.cuda.get_elapsed_time(s, e):.3f} ms, wall {1e3*(time.perf_counter()-t0):.1f} ms")
    flag[0] = 0; flag[1] = 0
    spin((1,), (1,), (cp.uint64(flag_dev), cp.uint64(2_000_000_000)))
    n = 1 << 16
    t0 = time.perf_counter(); k(((n + 255) // 256,), (256,), (x, out, cp.uint32(n))); t1 = time.perf_counter()
    flag[0] = 1
    cp.cuda.Device().synchronize()
    log(f"{name} behind the blocker: launch call took {1e3*(t1-t0):.1f} ms, blocker timed out: {bool(flag[1])}")
