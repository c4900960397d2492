// The body every kernel of the shared-memory chapter shares. The file that
// includes it defines SLOT(lane): the word of its warp's region where a lane
// keeps its value. Blocks of 256 threads, 8 warps; each warp owns a region
// of WARP_WORDS words (32 rows of 33, room for every layout of the chapter).
//
// Each thread loads one element, then passes it round its warp ROUNDS
// times through shared memory: each round every lane stores its value at
// SLOT(lane) and loads the one its right-hand neighbour stored, at
// SLOT((lane + 1) % 32). After ROUNDS = 64 rounds, two full turns of the
// warp, every lane holds its own element again and stores it to y: a copy
// that is only right if every round moved every value. Lanes past n take
// part with a 0, so that a partial warp still turns whole.
//
// A file may also define EXTRA(lane): then each round makes a second load,
// of word EXTRA(lane), and adds 0 times what it read, which leaves v as it
// was (the words hold finite values or 0) but which the compiler must keep,
// since 0 times a NaN or an infinity would not be 0. The region is zeroed
// first, so that the extra load never reads a word no lane wrote.
#define ROUNDS 64
#define WARP_WORDS (32 * 33)

extern "C" __global__ void rotate(const float* x, float* y, unsigned int n) {
    __shared__ float words[8][WARP_WORDS];
    unsigned int lane = threadIdx.x % 32;
    float* region = words[threadIdx.x / 32];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    unsigned int mine = SLOT(lane);
    unsigned int theirs = SLOT((lane + 1) % 32);
#ifdef EXTRA
    for (unsigned int k = lane; k < WARP_WORDS; k += 32) region[k] = 0.0f;
    __syncwarp();
    unsigned int extra = EXTRA(lane);
#endif
    for (int r = 0; r < ROUNDS; ++r) {
        region[mine] = v;     // one store per lane: a warp-wide STS
        __syncwarp();
        v = region[theirs];   // one load per lane: a warp-wide LDS
#ifdef EXTRA
        v += 0.0f * region[extra];   // the second load
#endif
        __syncwarp();
    }
    if (i < n) y[i] = v;
}
