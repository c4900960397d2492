/*+++
problem = "elementwise"
sizes = ["2^24", "2^26", "2^28"]
# 2^26 is the element count of the 8192 x 8192 transpose, which moves the
# same bytes. VEC float4s per thread (4 * VEC elements), 256 threads per block: a block
# copies 256 * VEC consecutive float4s; the n % 4 floats past the last
# float4 are copied by the first threads of block 0.
[[launch]]
kernel = "copy_tuned"
grid = "max(ceil_div(n, 4 * 256 * 4), 1)"
block = 256
args = ["x", "y", "n"]

[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/

#define VEC 4  // float4s per thread; the grid formula above divides by 4 * 256 * VEC

// ANCHOR: kernel
// Load k of thread t reads float4 number base + t + k * blockDim.x, so each
// of a warp's VEC loads is one request of 512 contiguous bytes. All VEC loads
// are issued before the first store, so a thread has VEC loads, 64 bytes, in
// flight at once instead of one.
extern "C" __global__ void __launch_bounds__(256) copy_tuned(const float* __restrict__ x,
                                                            float* __restrict__ y,
                                                            unsigned int n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    const unsigned int n4 = n / 4;
    const unsigned int base = blockIdx.x * blockDim.x * VEC + threadIdx.x;
    float4 v[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        unsigned int j = base + k * blockDim.x;
        if (j < n4) v[k] = x4[j];
    }
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        unsigned int j = base + k * blockDim.x;
        if (j < n4) y4[j] = v[k];
    }
    // The tail: at most three floats.
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        unsigned int i = 4 * (n / 4) + threadIdx.x;
        y[i] = x[i];
    }
}
// ANCHOR_END: kernel
