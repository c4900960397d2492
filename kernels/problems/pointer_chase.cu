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
// lines the walk touches sit. That is the number of slots times the
// 128-byte line, not the footprint: 128 lines (16 KiB) at the first size,
// 32768 (4 MiB) at the second, and 65536 (8 MiB, held in L2) at the third,
// whose 256 MiB at a 4 KiB stride spans device memory but touches one line
// a slot.
extern "C" __global__ void chase(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0;
    for (unsigned s = 0; s < steps; ++s) i = next[i];
    *out = i;
}
