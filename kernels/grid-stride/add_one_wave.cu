/*+++
problem = "elementwise"
sizes = ["2^24", "2^26"]
# add_blocks_per_sm.cu with BLOCKS = 8 written out, one wave of eight blocks
# of 256 threads per SM, so that its SASS can be listed (a swept example
# has no listing).
[[launch]]
kernel = "add_one_wave"
grid = "sms * 8"
block = 256
args = ["x", "y", "z", "n"]

[elementwise]
inputs = ["x", "y"]
output = "z"
reference = "x + y"
+++*/

extern "C" __global__ void add_one_wave(const float* x, const float* y, float* z,
                                        unsigned int n) {
    unsigned int stride = gridDim.x * blockDim.x;
    // ANCHOR: loop
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        z[i] = x[i] + y[i];
    }
    // ANCHOR_END: loop
}
