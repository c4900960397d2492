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
// The solution: column c of row k is stored at column c XOR k of that row.
// The values belong in column 0, so lane k's is at column k of row k, word
// 33·k, in bank k: 32 banks, and rows of 32 words.
#define COLUMN 0u
#define SWIZZLE(c, k) ((c) ^ (k))

// Each warp of a 256-thread block owns 32 rows of 32 words of shared
// memory, no padding. Every thread loads one element and passes it round
// its warp 64 times: each round lane k stores its value in row k and loads
// the value lane k + 1 stored in row k + 1 (lane 31 loads lane 0's). 64
// rounds are two full turns, so each lane ends with its own element and
// stores it: y = x, right only if every round moved every value.
extern "C" __global__ void pass_round(const float* x, float* y, unsigned int n) {
    __shared__ float rows[8][32 * 32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int next = (lane + 1) % 32;
    float* mine = rows[threadIdx.x / 32];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;   // lanes past n pass a 0 round
    for (int r = 0; r < 64; ++r) {
        mine[lane * 32 + SWIZZLE(COLUMN, lane)] = v;
        __syncwarp();
        v = mine[next * 32 + SWIZZLE(COLUMN, next)];
        __syncwarp();
    }
    if (i < n) y[i] = v;
}
