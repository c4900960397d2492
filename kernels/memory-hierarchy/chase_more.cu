/*+++
problem = "pointer_chase"
# The same walk as chase.cu at four more footprints, a slot every 128
# bytes: between the L1 and L2 steps, and on either side of where L2's
# latency changes and of its capacity.
sizes = [
    "footprint = 192KiB, stride = 128",
    "footprint = 16MiB, stride = 128",
    "footprint = 28MiB, stride = 128",
    "footprint = 60MiB, stride = 128",
]
[[launch]]
kernel = "chase"
grid = 1
block = 1
args = ["next", "out", "steps"]
+++*/
// The kernel of chase.cu, unchanged: one thread, one dependent load a step.
extern "C" __global__ void chase(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0;
    for (unsigned s = 0; s < steps; ++s) i = next[i];
    *out = i;
}
