// Kernels the measuring method itself uses; compiled once per process.

// Holds the stream until the host has queued the timed work, so that host
// launch latency never falls inside the timed interval. flag[0] is set by the
// host to release; flag[1] is set here if the release never came in time.
extern "C" __global__ void cm_blocker(volatile int* flag, unsigned long long timeout_ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flag[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) {
            flag[1] = 1;
            break;
        }
    }
}

// The launch floor: a kernel that does nothing.
extern "C" __global__ void cm_empty() {}

// Read ceiling: streams n4 float4 values with four independent loads in
// flight per thread; the sum is only stored under a condition the data
// never meets, so the loads cannot be removed.
extern "C" __global__ void cm_read(const float4* __restrict__ x, unsigned long long n4, float* sink) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 v0 = x[i], v1 = x[i + stride], v2 = x[i + 2 * stride], v3 = x[i + 3 * stride];
        a0 += v0.x + v0.y + v0.z + v0.w;
        a1 += v1.x + v1.y + v1.z + v1.w;
        a2 += v2.x + v2.y + v2.z + v2.w;
        a3 += v3.x + v3.y + v3.z + v3.w;
    }
    for (; i < n4; i += stride) {
        float4 v = x[i];
        a0 += v.x + v.y + v.z + v.w;
    }
    float acc = (a0 + a1) + (a2 + a3);
    if (acc == -1.0f) sink[0] = acc;
}

// Copy ceiling: dst = src over n4 float4 values, one float4 per thread and
// as many blocks as that takes (launched with 256 threads). Of the forms
// tried on the H200 this one moved the most bytes: 4274 GB/s at 2^28
// floats against 3950 GB/s for a grid-stride loop with two float4 in
// flight (bench/tuning/disguise-kernels/probe2-h200.log). A copy ceiling
// that well-written kernels beat would not be a ceiling.
extern "C" __global__ void cm_copy(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n4) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) dst[i] = src[i];
}

// FP32 FMA ceiling: CM_FMA_CHAINS independent chains of fmaf per thread, so
// that every scheduler always has an FMA whose inputs are ready (a chain
// waits about 4 cycles for its previous FMA; 8 chains and 16 warps a
// scheduler leave it none to wait for). x = x * a + b with a = 0.999 and
// b = 0.001 stays finite and cannot be folded (a and b are arguments, and
// float arithmetic is not reassociated); the outer loop is unrolled so that
// its counter and branch take 3 issue slots in about 130. The sum is stored
// only under a condition the chains never meet, so no FMA can be removed.
// Launched with 8 blocks of 256 threads per SM; each FMA counts 2 FLOP.
#define CM_FMA_CHAINS 8
extern "C" __global__ void cm_fma(unsigned iters, float a, float b, float* sink) {
    float x[CM_FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < CM_FMA_CHAINS; ++c) x[c] = (float)(threadIdx.x + c) * 1e-3f;
#pragma unroll 16
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
        for (int c = 0; c < CM_FMA_CHAINS; ++c) x[c] = fmaf(x[c], a, b);
    }
    float acc = 0.0f;
#pragma unroll
    for (int c = 0; c < CM_FMA_CHAINS; ++c) acc += x[c];
    if (acc == -1.0f) sink[0] = acc;
}

// Answer digest: two position-keyed 64-bit sums over a buffer of `bytes`
// bytes, so that the host can tell an answer identical to one already
// judged without copying it back. Word i (32 bits; a last partial word is
// read byte by byte and zero-padded) goes through the splitmix64 finaliser
// with the finalised 64-bit index, under two keys; the sums are order-free,
// so any grid works.
__device__ unsigned long long cm_mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

extern "C" __global__ void cm_digest(const unsigned char* __restrict__ data, unsigned long long bytes,
                                     unsigned long long* out) {
    unsigned long long words = (bytes + 3) / 4;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long h1 = 0, h2 = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        unsigned int w = 0;
        if (4 * i + 4 <= bytes) {
            w = reinterpret_cast<const unsigned int*>(data)[i];
        } else {
            for (unsigned long long b = 4 * i; b < bytes; ++b) {
                w |= (unsigned int)data[b] << (8 * (b - 4 * i));
            }
        }
        h1 += cm_mix(cm_mix(i ^ 0x9e3779b97f4a7c15ull) ^ w);
        h2 += cm_mix(cm_mix(i + 0x632be59bd9b4e019ull) ^ ((unsigned long long)w << 32));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        h1 += __shfl_down_sync(0xffffffffu, h1, offset);
        h2 += __shfl_down_sync(0xffffffffu, h2, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&out[0], h1);
        atomicAdd(&out[1], h2);
    }
}

// Shared-memory poison: each block fills all of its dynamic shared memory
// with NaN. Launched with one block per SM and the device's largest
// shared-memory allowance before a correctness run, so that a kernel that
// reads a shared slot no thread wrote reads NaN instead of whatever a
// previous kernel happened to leave there. The stores go through a
// volatile pointer so that the compiler keeps them although no thread of
// this kernel reads them back.
extern "C" __global__ void cm_poison_shared(unsigned words) {
    extern __shared__ unsigned cm_shared[];
    volatile unsigned* s = cm_shared;
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) s[i] = 0x7fc00000u;
    __syncthreads();
}

// The prefix-sum check on the GPU (problem::DeviceCheck::PrefixSumF32),
// the host check of scan_f32 done where the answer already is. Chunks of
// `chunk` elements (scan_f32::CHECK_CHUNK), one block each.
//
// cm_scan_totals: each chunk's float64 sum and sum of magnitudes of x,
// into totals[2c] and totals[2c + 1]. The host turns them into each
// chunk's starting sums, as the host check does.
__device__ void cm_block_sum2(double& s, double& m, double* shared_s, double* shared_m) {
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_down_sync(0xffffffffu, s, offset);
        m += __shfl_down_sync(0xffffffffu, m, offset);
    }
    if (lane == 0) {
        shared_s[warp] = s;
        shared_m[warp] = m;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned warps = blockDim.x / 32;
        s = lane < warps ? shared_s[lane] : 0.0;
        m = lane < warps ? shared_m[lane] : 0.0;
        for (int offset = 16; offset > 0; offset /= 2) {
            s += __shfl_down_sync(0xffffffffu, s, offset);
            m += __shfl_down_sync(0xffffffffu, m, offset);
        }
    }
}

extern "C" __global__ void cm_scan_totals(const float* __restrict__ x, unsigned long long n, unsigned chunk,
                                          double* __restrict__ totals) {
    __shared__ double shared_s[32], shared_m[32];
    unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    unsigned long long end = begin + chunk < n ? begin + chunk : n;
    double s = 0.0, m = 0.0;
    for (unsigned long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
        double v = x[i];
        s += v;
        m += fabs(v);
    }
    cm_block_sum2(s, m, shared_s, shared_m);
    if (threadIdx.x == 0) {
        totals[2 * blockIdx.x] = s;
        totals[2 * blockIdx.x + 1] = m;
    }
}

// cm_scan_worst: each chunk's worst element of y against the float64
// prefix sums of x that start from starts[2c] (sum) and starts[2c + 1]
// (sum of magnitudes): error exact (0 when equal, infinity otherwise) or
// |y - ref| / max(magnitudes, DBL_MIN), infinity for NaN or infinity,
// so that it never passes. Each thread walks `chunk / blockDim.x`
// consecutive elements twice: once for its part's sums, then, from the
// block's exclusive scan of those, element by element. Out: the worst
// error, its index (~0 for none above 0) and its reference, per chunk;
// the lowest index of the largest error, as the host check reports.
#define CM_INFINITY __longlong_as_double(0x7ff0000000000000ll)
#define CM_DBL_MIN 2.2250738585072014e-308
#define CM_DBL_MAX 1.7976931348623157e308

extern "C" __global__ void cm_scan_worst(const float* __restrict__ x, const float* __restrict__ y,
                                         unsigned long long n, unsigned chunk, const double* __restrict__ starts,
                                         int exact, double* __restrict__ worst_error,
                                         unsigned long long* __restrict__ worst_index,
                                         double* __restrict__ worst_reference) {
    __shared__ double part_s[1024], part_m[1024];
    __shared__ unsigned long long part_i[1024];
    unsigned t = threadIdx.x, threads = blockDim.x;
    unsigned long long chunk_begin = (unsigned long long)blockIdx.x * chunk;
    unsigned long long chunk_end = chunk_begin + chunk < n ? chunk_begin + chunk : n;
    unsigned long long per = (chunk + threads - 1) / threads;
    unsigned long long begin = chunk_begin + t * per;
    unsigned long long end = begin + per < chunk_end ? begin + per : chunk_end;
    double s = 0.0, m = 0.0;
    for (unsigned long long i = begin; i < end; ++i) {
        double v = x[i];
        s += v;
        m += fabs(v);
    }
    part_s[t] = s;
    part_m[t] = m;
    __syncthreads();
    // Inclusive scan of the parts (Hillis-Steele; a check, not a lesson).
    for (unsigned offset = 1; offset < threads; offset *= 2) {
        double add_s = t >= offset ? part_s[t - offset] : 0.0;
        double add_m = t >= offset ? part_m[t - offset] : 0.0;
        __syncthreads();
        part_s[t] += add_s;
        part_m[t] += add_m;
        __syncthreads();
    }
    s = starts[2 * blockIdx.x] + (t > 0 ? part_s[t - 1] : 0.0);
    m = starts[2 * blockIdx.x + 1] + (t > 0 ? part_m[t - 1] : 0.0);
    double worst = 0.0, worst_ref = 0.0;
    unsigned long long worst_at = ~0ull;
    for (unsigned long long i = begin; i < end; ++i) {
        double v = x[i];
        s += v;
        m += fabs(v);
        double got = y[i];
        double e;
        if (exact) {
            e = got == s ? 0.0 : CM_INFINITY;
        } else {
            e = fabs(got - s) / fmax(m, CM_DBL_MIN);
            // Not at most the largest double: NaN or infinity.
            if (!(e <= CM_DBL_MAX)) e = CM_INFINITY;
        }
        if (e > worst) {
            worst = e;
            worst_at = i;
            worst_ref = s;
        }
    }
    __syncthreads();
    part_s[t] = worst;
    part_m[t] = worst_ref;
    part_i[t] = worst_at;
    __syncthreads();
    // The largest error, the lowest index on a tie (parts are in index order).
    for (unsigned offset = 1; offset < threads; offset *= 2) {
        if (t % (2 * offset) == 0 && t + offset < threads) {
            double other = part_s[t + offset];
            if (other > part_s[t]) {
                part_s[t] = other;
                part_m[t] = part_m[t + offset];
                part_i[t] = part_i[t + offset];
            }
        }
        __syncthreads();
    }
    if (t == 0) {
        worst_error[blockIdx.x] = part_s[0];
        worst_index[blockIdx.x] = part_i[0];
        worst_reference[blockIdx.x] = part_m[0];
    }
}
