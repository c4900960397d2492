/*+++
problem = "pointer_chase"
# chase_ptr.cu with generic loads (SASS `LD` for `LDG`), the other form the
# H800 walk's plain C load could take: the L1 footprints only, a few ms a run.
sizes = [
    "footprint = 16KiB, stride = 128",
    "footprint = 192KiB, stride = 128",
]
# The pointers (pointers.cuh), as in chase_ptr.cu.
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
// chase_ptr.cu with each load a generic one: PTX `ld.u64` without a state
// space, which the SM resolves from the address (global, shared or local)
// as it loads; SASS `LD`, where chase_ptr's is `LDG`. The H800 walk's
// source, `idx = (int64_t *)*idx`, leaves the choice to its compiler, and
// which one its binary holds is not published; NVRTC here makes plain C's
// loads `LDG`, so the generic load is written in PTX.
extern "C" __global__ void chase_ptr(void* const* ptrs, unsigned* out, unsigned steps) {
    void* const* p = ptrs;
    for (unsigned s = 0; s < steps; ++s) asm("ld.u64 %0, [%0];" : "+l"(p));
    *out = word_reached(p);
}
// ANCHOR_END: walk
