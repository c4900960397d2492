/*+++
problem = "elementwise"
sizes = ["2^22"]
[[launch]]
kernel = "pass_round"
grid = "ceil_div(n, 256)"
block = 256
args = ["x", "y", "n"]
[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/
// A pitfall: two padding words per row. Row k starts at word 34·k, in
// bank 2·k mod 32: lanes k and k + 16 share a bank, a 2-way conflict.
#define ROW 34

// Each warp of a 256-thread block owns 32 rows of ROW words of shared
// memory. Every thread loads one element and passes it round its warp 64
// times: each round lane k stores its value at the start of row k and loads
// the value lane k + 1 stored at the start of row k + 1 (lane 31 loads
// lane 0's). 64 rounds are two full turns, so each lane ends with its own
// element and stores it: y = x, right only if every round moved every value.
extern "C" __global__ void pass_round(const float* x, float* y, unsigned int n) {
    __shared__ float rows[8][32 * ROW];
    unsigned int lane = threadIdx.x % 32;
    float* mine = rows[threadIdx.x / 32];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;   // lanes past n pass a 0 round
    for (int r = 0; r < 64; ++r) {
        mine[lane * ROW] = v;
        __syncwarp();
        v = mine[((lane + 1) % 32) * ROW];
        __syncwarp();
    }
    if (i < n) y[i] = v;
}
