//! How far an f32 all-reduce may be from the exact sum. Every rank's
//! output element is a sum of the k ranks' inputs formed by k - 1 f32
//! additions, in whatever order the algorithm takes (a ring, a tree, one
//! rank summing all). For any such order, with unit roundoff u = 2^-24,
//! |computed - exact| <= gamma(k - 1) * sum |x_r|, gamma(m) = m u / (1 - m u)
//! (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2).
//! The inputs are bounded by `R` ([`crate::allreduce::inputs::RANGE`]),
//! so sum |x_r| <= k R and the tolerance is gamma(k - 1) k R: 0 for one
//! rank (the output must be an exact copy), about 1.2e-7 for two, 3.3e-6
//! for eight. NaN and infinity never pass.

/// f32's unit roundoff, 2^-24.
pub const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;

/// The report's statement of the rule.
pub const FORMULA: &str = "gamma(k - 1) * k * R with gamma(m) = m u / (1 - m u), u = 2^-24, R the inputs' bound: the worst case of k - 1 f32 additions in any order (Higham 4.2); 0 for k = 1";

/// gamma(m) = m u / (1 - m u).
pub fn gamma(m: usize) -> f64 {
    let mu = m as f64 * UNIT_ROUNDOFF;
    mu / (1.0 - mu)
}

/// The absolute tolerance of a sum over `ranks` inputs each bounded by
/// `range`.
pub fn tolerance(ranks: usize, range: f64) -> f64 {
    gamma(ranks.saturating_sub(1)) * ranks as f64 * range
}

/// Whether `got` passes against the exact `want`: finite and within `tol`.
pub fn passes(got: f32, want: f64, tol: f64) -> bool {
    got.is_finite() && (f64::from(got) - want).abs() <= tol
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allreduce::inputs;

    // One rank's all-reduce is a copy: nothing but the exact value passes.
    #[test]
    fn one_rank_must_be_exact() {
        assert_eq!(tolerance(1, 1.0), 0.0);
        assert!(passes(0.25, 0.25, 0.0));
        assert!(!passes(0.25 + f32::EPSILON, 0.25, 0.0));
    }

    // The bound grows with the ranks as gamma(k - 1) k R.
    #[test]
    fn tolerance_grows_with_the_ranks() {
        let two = tolerance(2, 1.0);
        assert!((two - 2.0 * UNIT_ROUNDOFF / (1.0 - UNIT_ROUNDOFF)).abs() < 1e-20);
        assert!(tolerance(8, 1.0) > tolerance(4, 1.0));
        assert!((tolerance(8, 1.0) - 56.0 * UNIT_ROUNDOFF).abs() < 1e-11);
    }

    // The bound holds for the worst order there is: f32 sums of the
    // generator's inputs, left to right and right to left, over k ranks.
    #[test]
    fn f32_sums_of_the_inputs_stay_within_the_bound_in_any_order() {
        for ranks in 2..=8 {
            let seeds = inputs::rank_seeds(5, ranks);
            let tol = tolerance(ranks, inputs::RANGE);
            for i in 0..20_000u64 {
                let values: Vec<f32> = seeds.iter().map(|&s| inputs::value(s, i)).collect();
                let want = inputs::reference(&seeds, i);
                let forward = values.iter().fold(0.0f32, |a, &x| a + x);
                let backward = values.iter().rev().fold(0.0f32, |a, &x| a + x);
                assert!(passes(forward, want, tol), "k {ranks} i {i}");
                assert!(passes(backward, want, tol), "k {ranks} i {i}");
            }
        }
    }

    // NaN and infinity fail whatever the tolerance.
    #[test]
    fn non_finite_values_never_pass() {
        assert!(!passes(f32::NAN, 0.0, f64::INFINITY));
        assert!(!passes(f32::INFINITY, f64::INFINITY, 1.0));
    }
}
