/*+++
problem = "pointer_chase"
# A slot every 2 MiB + 128 B: each slot on a 2 MiB page of its own (for
# fewer than 16384 slots) at a different offset in it, so that the slots
# spread over L2's sets. 31, 511 and 2047 slots: a few lines, held in L2,
# on as many pages. The largest is a 4095 MiB array of which the walk
# touches 2047 lines (4095 MiB: a footprint is a launch variable, an
# unsigned int, so 4 GiB itself is one byte too many).
sizes = [
    "footprint = 64MiB, stride = 2097280",
    "footprint = 1GiB, stride = 2097280",
    "footprint = 4095MiB, stride = 2097280",
]
[[launch]]
kernel = "chase"
grid = 1
block = 1
args = ["next", "out", "steps"]
+++*/
// The kernel of chase.cu, unchanged: only the sizes differ.
extern "C" __global__ void chase(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0;
    for (unsigned s = 0; s < steps; ++s) i = next[i];
    *out = i;
}
