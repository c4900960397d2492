/*+++
problem = "sum_f32"
sizes = ["2^20", "2^24"]
# One thread per element in blocks of 256; element i is added to slot i %
# SLOTS, so the lanes of a warp write SLOTS different addresses (all 32 from
# SLOTS = 32 on) and each address receives n / SLOTS updates. SLOTS = 1 is
# reductions/atomic_per_element's single address, plus the second launch.
# The slots start at 0 before every run (zeroed scratch), so there is no hot
# figure.
[sweep]
SLOTS = [1, 4, 32, 1024, 32768]

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
#define SLOT(i) (i)
// ANCHOR_END: slot
#include "slots.cuh"
