/*+++
problem = "pointer_chase"
# chase.cu's walk over the same cycles through 64-bit pointers: the L1
# footprints of chase.cu and chase_more.cu (16 KiB, 192 KiB), and one L2
# (4 MiB) and one device-memory footprint (96 MiB) for scale. The 96 MiB
# walk took about 0.37 s a run in chase.cu: the default budget of 30 s
# gives it about 8 samples in each of the 8 processes, the others their 10.
sizes = [
    "footprint = 16KiB, stride = 128",
    "footprint = 192KiB, stride = 128",
    "footprint = 4MiB, stride = 128",
    "footprint = 96MiB, stride = 128",
]
# The pointers (pointers.cuh): the problem's slots (pointer_chase.rs,
# `layout`) x its 32-bit words a slot, rounded up to even and at least 4.
[scratch]
ptrs = { len = "max(min(footprint / (4 * max(stride / 4, 1)), 4194304), 2) * max(max(stride / 4, 1) + max(stride / 4, 1) % 2, 4)", elem = "u32" }
[[launch]]
kernel = "to_pointers"
setup = true
grid = 1
block = 1024
args = ["next", "ptrs", "footprint", "stride"]
[[launch]]
kernel = "chase_ptr"
grid = 1
block = 1
args = ["ptrs", "out", "steps"]
+++*/
#include "pointers.cuh"

// ANCHOR: walk
// One thread follows the cycle through the pointers themselves: each load's
// address is the 64-bit value the previous load returned, with no index to
// turn into an address between two loads. `__isGlobal` tells the compiler
// that the pointer is one into global memory, so that every load is an
// `LDG` as in chase.cu, whatever the compiler would infer of a pointer it
// loaded (a generic `LD` would find the state space from the address as it
// loads: chase_ptr_generic.cu).
extern "C" __global__ void chase_ptr(void* const* ptrs, unsigned* out, unsigned steps) {
    void* const* p = ptrs;
    for (unsigned s = 0; s < steps; ++s) {
        __builtin_assume(__isGlobal(p));
        p = static_cast<void* const*>(*p);
    }
    *out = word_reached(p);
}
// ANCHOR_END: walk
