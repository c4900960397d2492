/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24"]
# slots_by_lane.cu with slot (i / 32) % SLOTS: all 32 lanes of a warp add to
# one address, and the warps spread over SLOTS addresses, n / SLOTS updates
# each. Against slots_by_lane at the same SLOTS, the same number of updates
# land on each address; what changes is that the 32 of one warp's
# instruction land on the same one.
[sweep]
SLOTS = [32, 1024, 32768]

[scratch]
slots = { len = "SLOTS", elem = "f32", init = "zeroed" }

[[launch]]
kernel = "add_to_slots"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "slots", "n"]

[[launch]]
kernel = "sum_slots"
grid = 1
block = 1024
args = ["slots", "out"]
+++*/

// ANCHOR: slot
#define SLOT(i) (i / 32)
// ANCHOR_END: slot
#include "slots.cuh"
