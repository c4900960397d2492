// The strided copy of the coalescing chapter, for the STRIDE its including
// file defines: every element is copied once, in the order of a
// STRIDE-column matrix read down its columns.
// ANCHOR: kernel
// Thread t copies element (t % rows) * STRIDE + t / rows, rows =
// ceil(n / STRIDE): lanes t and t + 1 of a warp copy elements STRIDE
// floats apart (except where t % rows wraps to 0).
extern "C" __global__ void strided_copy(const float* x, float* y, unsigned int n) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int rows = (n + STRIDE - 1) / STRIDE;
    if (t < rows * STRIDE) {
        unsigned int i = (t % rows) * STRIDE + t / rows;
        if (i < n) {
            y[i] = x[i];
        }
    }
}
// ANCHOR_END: kernel
