/*+++
problem = "pointer_chase"
# The footprints of chase.cu's first two steps: 16 KiB (L1 there) and
# 4 MiB (L2 there).
sizes = [
    "footprint = 16KiB, stride = 128",
    "footprint = 4MiB, stride = 128",
]
[[launch]]
kernel = "chase_cg"
grid = 1
block = 1
args = ["next", "out", "steps"]
+++*/
// ANCHOR: walk
// chase.cu with one change: each load is `ld.global.cg` ("cache global"),
// which the SM serves from L2 without keeping the line in its L1. A walk
// that fits L1 then pays L2's latency at every step.
extern "C" __global__ void chase_cg(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0;
    for (unsigned s = 0; s < steps; ++s) i = __ldcg(next + i);
    *out = i;
}
// ANCHOR_END: walk
