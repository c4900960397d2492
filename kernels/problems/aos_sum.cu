/*+++
problem = "elementwise"
sizes = ["2^20", "2^24", "2^26"]
# One thread per element, 256 per block: s[i] = p[i].x + p[i].y, p an array
# of 16-byte structures of four floats.
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
// The layout of [elementwise.structs]: four floats in that order, 16 bytes.
struct Particle {
    float x, y, z, w;
};
static_assert(sizeof(Particle) == 16, "the declared layout is 16 bytes");

extern "C" __global__ void aos_sum(const Particle* p, float* s, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[i] = p[i].x + p[i].y;
    }
}
// ANCHOR_END: kernel
