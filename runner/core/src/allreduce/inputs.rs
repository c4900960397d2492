//! Every rank's input and the float64 reference, drawn from a counter-based
//! generator (splitmix64's finaliser of the seed and the element index), so
//! that the host can fill any piece of any rank's input and recompute the
//! reference of any element without keeping a copy of k inputs.
//!
//! Each rank has its own seed, drawn from the run's seed and the rank, so
//! the ranks' inputs are independent. A value is `(2j + 1 - 2^23) 2^-23`
//! for the top 23 bits `j` of the hash: an odd multiple of 2^-23 in
//! (-1, 1), never zero, exact in f32, and of both signs so that sums
//! cancel as a gradient's do. A sum of at most [`crate::allreduce::MAX_RANKS`]
//! such values is exact in f64 (each has at most 24 significant bits on a
//! grid of 2^-23), so the reference has no rounding error of its own.

/// The bound on every input's magnitude: |x| < 1.
pub const RANGE: f64 = 1.0;

/// What the report says about the generator.
pub const DESCRIPTION: &str = "splitmix64 finaliser of (rank seed + index x 0x9E3779B97F4A7C15); the top 23 bits j give (2j + 1 - 2^23) / 2^23, an odd multiple of 2^-23 in (-1, 1); rank seeds are the finaliser of (seed + rank + 1)";

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's finaliser.
pub fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of `rank`'s input in a run seeded with `seed`.
pub fn rank_seed(seed: u64, rank: usize) -> u64 {
    mix(seed.wrapping_add(rank as u64 + 1))
}

/// The seeds of ranks 0..`ranks`.
pub fn rank_seeds(seed: u64, ranks: usize) -> Vec<u64> {
    (0..ranks).map(|r| rank_seed(seed, r)).collect()
}

/// Element `index` of the input whose seed is `seed`.
pub fn value(seed: u64, index: u64) -> f32 {
    let j = (mix(seed.wrapping_add(index.wrapping_mul(GOLDEN))) >> 41) as i32;
    (2 * j + 1 - (1 << 23)) as f32 * (1.0 / (1u32 << 23) as f32)
}

/// Fills `out` with elements `first..first + out.len()` of the input whose
/// seed is `seed`.
pub fn fill(seed: u64, first: u64, out: &mut [f32]) {
    for (i, x) in out.iter_mut().enumerate() {
        *x = value(seed, first + i as u64);
    }
}

/// The float64 sum over ranks of element `index` (exact, see above).
pub fn reference(seeds: &[u64], index: u64) -> f64 {
    seeds.iter().map(|&s| f64::from(value(s, index))).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values lie strictly inside (-1, 1), are never zero and are odd
    // multiples of 2^-23, so f32 holds them exactly.
    #[test]
    fn values_are_nonzero_odd_multiples_of_2_pow_minus_23_inside_the_range() {
        let seed = rank_seed(1, 0);
        let mut negative = 0;
        for i in 0..100_000u64 {
            let x = value(seed, i);
            assert!(f64::from(x).abs() < RANGE && x != 0.0, "{x} at {i}");
            let scaled = f64::from(x) * f64::from(1u32 << 23);
            assert_eq!(scaled.fract(), 0.0);
            assert_eq!(scaled.abs() as u64 % 2, 1);
            negative += usize::from(x < 0.0);
        }
        // Both signs, about half each.
        assert!((45_000..55_000).contains(&negative), "{negative}");
    }

    // Ranks draw different inputs from one run seed; the same seed draws the same.
    #[test]
    fn ranks_are_independent_and_runs_repeatable() {
        let seeds = rank_seeds(7, 3);
        assert_eq!(seeds, rank_seeds(7, 3));
        assert_ne!(seeds[0], seeds[1]);
        let a: Vec<f32> = (0..64).map(|i| value(seeds[0], i)).collect();
        let b: Vec<f32> = (0..64).map(|i| value(seeds[1], i)).collect();
        assert_ne!(a, b);
    }

    // Filling a piece gives the same values as drawing them one by one.
    #[test]
    fn fill_matches_value_at_any_offset() {
        let seed = rank_seed(3, 2);
        let mut piece = vec![0.0f32; 17];
        fill(seed, 1_000_000, &mut piece);
        for (i, x) in piece.iter().enumerate() {
            assert_eq!(*x, value(seed, 1_000_000 + i as u64));
        }
    }

    // The reference of eight ranks is exact: adding in any order gives the same f64.
    #[test]
    fn reference_is_exact_in_any_order() {
        let seeds = rank_seeds(11, 8);
        for i in 0..10_000u64 {
            let forward = reference(&seeds, i);
            let backward: f64 = seeds.iter().rev().map(|&s| f64::from(value(s, i))).sum();
            assert_eq!(forward, backward);
        }
    }
}
