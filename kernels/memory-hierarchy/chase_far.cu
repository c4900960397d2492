/*+++
problem = "pointer_chase"
# chase.cu's walk at every 4 MiB from 28 to 60 MiB, a slot every 128 bytes:
# where the L2 plateau of 4 to 16 MiB ends, to see whether the time per
# load climbs in one step (a second plateau, as the H800 walk shows) or
# smoothly. A run is a lap and a half of footprint / 128 loads: from about
# 0.06 s at 28 MiB to 0.2 s at 60 MiB (chase_more.json), about 1.1 s for
# one run of every size. A warm-up and 10 samples of each in each of the 8
# processes would be about 100 s; 60 s gives each process at least 4
# samples of every size (10 of the smallest), the rest ended by the budget.
sizes = [
    "footprint = 28MiB, stride = 128",
    "footprint = 32MiB, stride = 128",
    "footprint = 36MiB, stride = 128",
    "footprint = 40MiB, stride = 128",
    "footprint = 44MiB, stride = 128",
    "footprint = 48MiB, stride = 128",
    "footprint = 52MiB, stride = 128",
    "footprint = 56MiB, stride = 128",
    "footprint = 60MiB, stride = 128",
]
budget_s = 60
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
