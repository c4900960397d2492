/*+++
problem = "pointer_chase"
# A slot every 128 bytes, one line each: the lines the walk touches are the
# footprint. 16 KiB fits the SM's L1; 4 MiB and 40 MiB fit the L2 (60 MiB
# as the driver reports it on the H200); 96 MiB does not.
sizes = [
    "footprint = 16KiB, stride = 128",
    "footprint = 4MiB, stride = 128",
    "footprint = 40MiB, stride = 128",
    "footprint = 96MiB, stride = 128",
]
[[launch]]
kernel = "chase"
grid = 1
block = 1
args = ["next", "out", "steps"]
+++*/
// ANCHOR: walk
// One thread follows the cycle: the address of each load is the value the
// previous load returned, so no two loads overlap, and the walk's time over
// its `steps` loads is the latency of one load from wherever the lines it
// touches are held.
extern "C" __global__ void chase(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0;
    for (unsigned s = 0; s < steps; ++s) i = next[i];
    *out = i;
}
// ANCHOR_END: walk
