//! nccl-tests' bandwidths of an all-reduce (NCCL's
//! doc/PERFORMANCE.md): the algorithm bandwidth is the message's bytes
//! over the time, and the bus bandwidth scales it by 2 (k - 1) / k, the
//! share of the message each rank must send and receive over its links in
//! a ring, so that it compares across GPU counts and with a link's line
//! rate. For one rank no byte crosses a link: the factor is 0 and so is the
//! bus bandwidth, by definition, not by a division.

/// GB/s (10^9 bytes per second) of `bytes` in `time_us` microseconds.
pub fn algbw_gbs(bytes: u64, time_us: f64) -> f64 {
    bytes as f64 / (time_us * 1e-6) / 1e9
}

/// 2 (k - 1) / k: 0 for one rank, 1 for two, 1.75 for eight.
pub fn bus_factor(ranks: usize) -> f64 {
    if ranks == 0 {
        return 0.0;
    }
    2.0 * (ranks - 1) as f64 / ranks as f64
}

/// The bus bandwidth, GB/s.
pub fn busbw_gbs(bytes: u64, time_us: f64, ranks: usize) -> f64 {
    algbw_gbs(bytes, time_us) * bus_factor(ranks)
}

/// What the report says when the bus bandwidth is 0 because there is one
/// rank.
pub const ONE_RANK_NOTE: &str = "one rank: no byte crosses a link, so the bus bandwidth (algbw x 2(k-1)/k) is 0 by definition; algbw is the rank's own copy or reduction";

#[cfg(test)]
mod tests {
    use super::*;

    // 1 GB in 1 ms is 1000 GB/s.
    #[test]
    fn algbw_is_bytes_over_time() {
        assert!((algbw_gbs(1_000_000_000, 1000.0) - 1000.0).abs() < 1e-9);
    }

    // The bus factor is nccl-tests' 2(k-1)/k, and exactly 0 for one rank.
    #[test]
    fn bus_factor_is_nccl_tests_ring_share() {
        assert_eq!(bus_factor(1), 0.0);
        assert_eq!(bus_factor(2), 1.0);
        assert_eq!(bus_factor(4), 1.5);
        assert_eq!(bus_factor(8), 1.75);
        assert_eq!(busbw_gbs(1 << 30, 100.0, 1), 0.0);
        assert_eq!(busbw_gbs(1 << 30, 100.0, 2), algbw_gbs(1 << 30, 100.0));
    }
}
