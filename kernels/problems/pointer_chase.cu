/*+++
problem = "pointer_chase"
sizes = [
    "footprint = 16KiB, stride = 128",
    "footprint = 4MiB, stride = 128",
    "footprint = 256MiB, stride = 4096",
]
[[launch]]
kernel = "chase"
grid = 1
block = 1
args = ["next", "out", "steps"]
+++*/
// One thread follows the cycle: each load's address is the value the
// previous load returned, so no two loads overlap and the time of the walk
// over its `steps` loads is the latency of one load from wherever the
// footprint sits (L1 at 16 KiB, L2 at 4 MiB, device memory at 256 MiB).
extern "C" __global__ void chase(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0;
    for (unsigned s = 0; s < steps; ++s) i = next[i];
    *out = i;
}
