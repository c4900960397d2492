//! How the ranks split a message. The two-shot kernels
//! (kernels/allreduce/two_shot.cu) give rank r the elements
//! [min(n, r c), min(n, (r + 1) c)) with c = [`chunk_floats`], a multiple
//! of four so that every chunk starts on a float4; the host passes c, so
//! the split is decided here only. Launch geometry is here too.

/// Threads per block of the all-reduce kernels.
pub const BLOCK: u32 = 512;
/// Blocks per SM at most: enough warps in flight to cover NVLink's and
/// HBM's latency; larger messages loop (grid-stride).
pub const BLOCKS_PER_SM: u32 = 4;

/// Elements per rank's chunk of an `n`-element message over `ranks`.
pub fn chunk_floats(n: u64, ranks: usize) -> u64 {
    n.div_ceil(4).div_ceil(ranks.max(1) as u64) * 4
}

/// The elements `[begin, end)` of `rank`'s chunk.
pub fn chunk(rank: usize, ranks: usize, n: u64) -> (u64, u64) {
    let c = chunk_floats(n, ranks);
    let begin = n.min(rank as u64 * c);
    (begin, n.min(begin + c))
}

/// The grid of a kernel whose threads each take one float4 of `n`
/// elements (the last partial one included): enough blocks for one pass,
/// at most [`BLOCKS_PER_SM`] per SM, at least one.
pub fn grid(n: u64, sm_count: u32) -> u32 {
    let threads = n.div_ceil(4).max(1);
    let blocks = threads.div_ceil(u64::from(BLOCK));
    blocks.clamp(1, u64::from((sm_count * BLOCKS_PER_SM).max(1))) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    // The chunks cover the message once, in order, each starting on a float4.
    #[test]
    fn chunks_tile_the_message_on_float4_boundaries() {
        for ranks in 1..=8 {
            for n in [
                0u64,
                1,
                2,
                3,
                4,
                5,
                31,
                32,
                33,
                1000,
                1 << 20,
                (1 << 20) + 3,
            ] {
                let mut next = 0;
                for rank in 0..ranks {
                    let (begin, end) = chunk(rank, ranks, n);
                    assert_eq!(begin, next, "k {ranks} n {n} rank {rank}");
                    assert!(begin <= end);
                    assert!(begin % 4 == 0 || begin == n);
                    next = end;
                }
                assert_eq!(next, n, "k {ranks} n {n}");
            }
        }
    }

    // One rank's chunk is the whole message.
    #[test]
    fn one_rank_owns_everything() {
        assert_eq!(chunk(0, 1, 1003), (0, 1003));
    }

    // Small messages get one block; large ones at most four per SM.
    #[test]
    fn grid_covers_small_messages_and_caps_large_ones() {
        assert_eq!(grid(2, 132), 1);
        assert_eq!(grid(4 * 512, 132), 1);
        assert_eq!(grid(4 * 512 + 1, 132), 2);
        assert_eq!(grid(1 << 30, 132), 528);
    }
}
