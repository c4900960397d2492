/*+++
problem = "elementwise"
sizes = ["2^24"]
# One thread per element, 256 per block: s[i] = p[i].x + p[i].y, p an array
# of 16-byte structures of four floats, of which the sum reads two.
[[launch]]
kernel = "aos_sum"
grid = "ceil_div(n, 256)"
block = 256
args = ["p", "s", "n"]

[elementwise]
inputs = ["p"]
output = "s"
reference = "p.x + p.y"

[elementwise.structs]
p = ["x", "y", "z", "w"]
+++*/

// ANCHOR: kernel
// An array of structures: element i's four fields are floats 4i to 4i + 3.
struct Particle {
    float x, y, z, w;
};
static_assert(sizeof(Particle) == 16, "the declared layout is 16 bytes");

// Lane k of a warp reads p[i0 + k].x and p[i0 + k].y: two loads whose 32
// addresses lie 16 bytes apart, 512 bytes for each, of which the sum
// uses a quarter.
extern "C" __global__ void aos_sum(const Particle* p, float* s, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[i] = p[i].x + p[i].y;
    }
}
// ANCHOR_END: kernel
