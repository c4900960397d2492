// The pointer walks' common part (chase_ptr.cu, chase_ptr_generic.cu): the
// problem's `next`, an array of 32-bit word indices, turned into an array
// of 64-bit pointers over the same slots, and the word index the problem
// checks read back from the pointer a walk ends on.

// The problem's layout (runner/core/src/problem/pointer_chase.rs, `layout`):
// 32-bit words a slot of `next`, and slots.
__device__ unsigned words_per_slot(unsigned stride) { return stride / 4 > 1 ? stride / 4 : 1; }
__device__ unsigned long long slots_of(unsigned footprint, unsigned stride) {
    unsigned long long s = footprint / (4ull * words_per_slot(stride));
    if (s > (1ull << 22)) s = 1ull << 22;
    return s < 2 ? 2 : s;
}

// 32-bit words from one slot of `ptrs` to the next: those of a slot of
// `next`, rounded up to even so that every pointer is 8-byte aligned, and
// at least 4, room for the pointer and the slot's own word index in `next`
// after it. At a stride of 128 B, 32: a slot every 128 bytes at the same
// byte offsets as in `next`, so the same lines; only the edge shapes'
// strides of 4 and 12 B space the slots differently.
__device__ unsigned long long ptr_words_per_slot(unsigned stride) {
    unsigned w = words_per_slot(stride) + words_per_slot(stride) % 2;
    return w > 4 ? w : 4;
}

// Setup (outside the timed region, before every run): slot k of `ptrs`
// gets the address of the slot that slot k of `next` names, and after it
// its own word index in `next`, which the walk's end reports. The runner
// fills kept scratch with poison before the checked run of each size only
// (AUTHORING §2), and later runs find what the one before left; so the
// conversion is made when slot 0 does not hold its pointer yet (poison
// never does), and the timed runs find it made: they start with what the
// previous walk left in the caches, as chase.cu's do, not with the lines
// a conversion reads and writes. One block, so that thread 0 reads slot 0
// before any thread writes it. A stale array would end the walk on a
// wrong word, which the problem's check after the timed runs would catch.
extern "C" __global__ void to_pointers(const unsigned* next, unsigned* ptrs, unsigned footprint,
                                       unsigned stride) {
    const unsigned w = words_per_slot(stride);
    const unsigned long long slots = slots_of(footprint, stride), q = ptr_words_per_slot(stride);
    __shared__ int made;
    if (threadIdx.x == 0) made = *reinterpret_cast<void**>(ptrs) == ptrs + next[0] / w * q;
    __syncthreads();
    if (made) return;
    for (unsigned long long k = threadIdx.x; k < slots; k += blockDim.x) {
        unsigned* slot = ptrs + k * q;
        *reinterpret_cast<void**>(slot) = ptrs + next[k * w] / w * q;
        slot[2] = static_cast<unsigned>(k * w);
    }
}

// What the problem checks: the word index, in `next`, of the slot the walk
// reached, stored beside its pointer.
__device__ unsigned word_reached(void* const* p) { return reinterpret_cast<const unsigned*>(p)[2]; }
