// The host side of a sum kernel in CUDA C++, built with nvcc together with
// the kernel file the page shows:
//
//   nvcc -std=c++17 -O2 -o host_sum -DKERNEL_FILE='"stage3_solution.cu"' \
//        -DKERNEL=sum_block_fold host_sum.cu
//   ./host_sum N GRID BLOCK SHARED_BYTES
//
// It fills N floats in [0, 1), launches KERNEL(x, out, n) once with the
// given grid, block and dynamic shared memory, and compares the float sum
// with a double sum on the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include KERNEL_FILE

// Stops with the CUDA error's name and where it happened.
#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t e = (call);                                              \
        if (e != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(e));                             \
            std::exit(2);                                                    \
        }                                                                    \
    } while (0)

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s N GRID BLOCK SHARED_BYTES\n", argv[0]);
        return 2;
    }
    unsigned int n = std::strtoul(argv[1], nullptr, 10);
    unsigned int grid = std::strtoul(argv[2], nullptr, 10);
    unsigned int block = std::strtoul(argv[3], nullptr, 10);
    unsigned int shared = std::strtoul(argv[4], nullptr, 10);

    std::vector<float> x(n);
    std::mt19937 gen(2026);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    double expected = 0.0;
    for (float& v : x) {
        v = uniform(gen);
        expected += v;
    }

    float *d_x, *d_out;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, sizeof(float)));  // kernels that add into out start from 0

    KERNEL<<<grid, block, shared>>>(d_x, d_out, n);
    CHECK(cudaGetLastError());
    float got;
    CHECK(cudaMemcpy(&got, d_out, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out));

    // The book's tolerance for a float sum (values in [0, 1), so relative
    // to the sum itself): 4 sqrt(n) units of roundoff, u = 2^-24.
    double rel = std::fabs(got - expected) / expected;
    double tol = 4.0 * std::sqrt((double)n) * 5.9604644775390625e-8;
    std::printf("sum %.6f, double sum on the CPU %.6f, relative error %.2e (tolerance %.2e): %s\n",
                got, expected, rel, tol, rel <= tol ? "right" : "WRONG");
    return rel <= tol ? 0 : 1;
}
