/*+++
problem = "elementwise"
sizes = ["2^26", "2^28"]
[[launch]]
kernel = "copy_gs2"
grid = "sms * 4"
block = 512
args = ["x", "y", "n"]
[elementwise]
inputs = ["x"]
output = "y"
reference = "x"
+++*/
// The runner's support copy kernel (cm_copy): grid-stride, two float4 in flight.
extern "C" __global__ void copy_gs2(const float* __restrict__ x, float* __restrict__ y, unsigned int n) {
    const float4* src = reinterpret_cast<const float4*>(x);
    float4* dst = reinterpret_cast<float4*>(y);
    unsigned long long n4 = n / 4;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < n4; i += 2 * stride) {
        float4 v0 = src[i], v1 = src[i + stride];
        dst[i] = v0;
        dst[i + stride] = v1;
    }
    for (; i < n4; i += stride) dst[i] = src[i];
    for (unsigned int j = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) y[j] = x[j];
}
