// Two ways to take one element of the fma_f32 problem through its chain,
// with the same result bit for bit. With a = -1, a multiply-add
// fmaf(v, a, b) and a subtraction b - v both give b - v rounded once, so
// `steps` of either give the problem's answer. They compile to different
// instructions (FFMA and FADD), which keeps the compiler from merging the
// two sides of a branch into one; each costs one instruction a step.
// ANCHOR: paths
__device__ float path_fma(float v, float a, float b, unsigned int steps) {
    for (unsigned int s = 0; s < steps; ++s) {
        v = fmaf(v, a, b);
    }
    return v;
}

__device__ float path_sub(float v, float b, unsigned int steps) {
    for (unsigned int s = 0; s < steps; ++s) {
        v = b - v;
    }
    return v;
}
// ANCHOR_END: paths
