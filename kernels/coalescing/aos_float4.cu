/*+++
problem = "elementwise"
sizes = ["2^24"]
# aos.cu with each structure read by one 16-byte load.
[[launch]]
kernel = "aos_sum_float4"
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
// The same structures, aligned to 16 bytes so that the compiler reads each
// with one 16-byte load (LDG.E.128): one request per warp of 512 bytes,
// all of which the warp receives, half of which the sum uses.
struct __align__(16) Particle {
    float x, y, z, w;
};
static_assert(sizeof(Particle) == 16, "the declared layout is 16 bytes");

extern "C" __global__ void aos_sum_float4(const Particle* p, float* s, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Particle q = p[i];
        s[i] = q.x + q.y;
    }
}
// ANCHOR_END: kernel
