/*+++
problem = "sum_f32"
sizes = ["2^22"]
# stage1_solution.cu with its loop kept rolled: one thread, one load in
# flight. Each load waits on memory before the next is issued, so a run
# takes longer than the solution's; each measuring process gets the full
# time limit.
timeout_s = 120
[[launch]]
kernel = "sum_one_thread_rolled"
grid = 1
block = 1
args = ["input", "out", "n"]
+++*/

// A control for stage 1: the solution's single thread and its loop, with
// `#pragma unroll 1` so that the compiler keeps one load and one addition
// per trip. The solution's compiled loop issues 16 independent loads
// before its 16 additions; here each addition needs the load just issued,
// and the next load comes after that addition.
extern "C" __global__ void sum_one_thread_rolled(const float* x, float* out, unsigned int n) {
    float total = 0.0f;
#pragma unroll 1
    for (unsigned int i = 0; i < n; ++i) {
        total += x[i];
    }
    *out = total;
}
