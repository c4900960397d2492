// The asynchronous copy of the split cluster kernels of "Reductions in
// disguise", which keep half of each thread's values in shared memory.

// Copies 16 bytes from global to shared memory without passing through
// registers; with `bytes` 0 it writes zeros instead of reading.
__device__ void copy16_async(void* smem, const void* gmem, unsigned int bytes) {
    unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
