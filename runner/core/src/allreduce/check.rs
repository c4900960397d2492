//! The check of every rank's output against the float64 sum of all ranks'
//! inputs, one piece at a time as the runner copies an output back: each
//! piece gives a [`Tally`], and the tallies of all pieces and ranks merge
//! into one.

use super::{inputs, tolerance};
use serde::{Deserialize, Serialize};

/// The first element that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BadElement {
    /// The rank whose output holds it.
    pub rank: usize,
    /// Its index in the message.
    pub index: u64,
    /// What the rank's output holds.
    #[serde(with = "crate::nonfinite")]
    pub got: f64,
    /// The float64 sum of the ranks' inputs.
    pub want: f64,
}

/// What the check found in some pieces of some outputs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Tally {
    /// Elements checked.
    pub checked: u64,
    /// Elements outside the tolerance, NaN or infinite.
    pub bad: u64,
    /// The largest |got - want|; infinite when an output is not finite.
    #[serde(with = "crate::nonfinite")]
    pub max_abs_error: f64,
    /// The first bad element (lowest rank, then lowest index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_bad: Option<BadElement>,
}

impl Tally {
    /// Checks `got`, elements `first..first + got.len()` of `rank`'s
    /// output, against the reference of the ranks seeded `seeds`.
    pub fn of_piece(rank: usize, first: u64, got: &[f32], seeds: &[u64], tol: f64) -> Tally {
        let mut tally = Tally::default();
        for (offset, &g) in got.iter().enumerate() {
            let index = first + offset as u64;
            let want = inputs::reference(seeds, index);
            let error = if g.is_finite() {
                (f64::from(g) - want).abs()
            } else {
                f64::INFINITY
            };
            tally.max_abs_error = tally.max_abs_error.max(error);
            if !tolerance::passes(g, want, tol) {
                tally.bad += 1;
                tally.first_bad.get_or_insert(BadElement {
                    rank,
                    index,
                    got: f64::from(g),
                    want,
                });
            }
        }
        tally.checked = got.len() as u64;
        tally
    }

    /// The tally of both.
    pub fn merge(self, other: Tally) -> Tally {
        let first_bad = match (self.first_bad, other.first_bad) {
            (Some(a), Some(b)) => Some(if (b.rank, b.index) < (a.rank, a.index) {
                b
            } else {
                a
            }),
            (a, b) => a.or(b),
        };
        Tally {
            checked: self.checked + other.checked,
            bad: self.bad + other.bad,
            max_abs_error: self.max_abs_error.max(other.max_abs_error),
            first_bad,
        }
    }

    /// Whether every one of `expected` elements was checked and passed.
    pub fn passed(&self, expected: u64) -> bool {
        self.bad == 0 && self.checked == expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(seeds: &[u64], first: u64, len: usize) -> Vec<f32> {
        (0..len as u64)
            .map(|i| {
                seeds
                    .iter()
                    .fold(0.0f32, |a, &s| a + inputs::value(s, first + i))
            })
            .collect()
    }

    // A correct f32 all-reduce of three ranks passes everywhere.
    #[test]
    fn a_correct_sum_passes() {
        let seeds = inputs::rank_seeds(1, 3);
        let tol = tolerance::tolerance(3, inputs::RANGE);
        let tally = Tally::of_piece(0, 500, &sums(&seeds, 500, 1000), &seeds, tol);
        assert!(tally.passed(1000), "{tally:?}");
        assert!(tally.max_abs_error <= tol);
    }

    // An output that missed one rank's input, or was never written (NaN
    // poison), fails, and the first failure is named.
    #[test]
    fn a_missing_rank_or_an_unwritten_element_fails() {
        let seeds = inputs::rank_seeds(1, 2);
        let tol = tolerance::tolerance(2, inputs::RANGE);
        let mut got = sums(&seeds, 0, 100);
        got[7] = inputs::value(seeds[0], 7);
        got[40] = f32::NAN;
        let tally = Tally::of_piece(1, 0, &got, &seeds, tol);
        assert_eq!(tally.bad, 2);
        assert!(tally.max_abs_error.is_infinite());
        let first = tally.first_bad.unwrap();
        assert_eq!((first.rank, first.index), (1, 7));
        assert!(!Tally::default().passed(1));
    }

    // Merging keeps the counts, the worst error and the earliest failure.
    #[test]
    fn merging_keeps_counts_worst_error_and_earliest_failure() {
        let bad = |rank, index| BadElement {
            rank,
            index,
            got: 0.0,
            want: 1.0,
        };
        let a = Tally {
            checked: 10,
            bad: 1,
            max_abs_error: 0.5,
            first_bad: Some(bad(1, 3)),
        };
        let b = Tally {
            checked: 5,
            bad: 2,
            max_abs_error: 1.0,
            first_bad: Some(bad(0, 9)),
        };
        let both = a.merge(b);
        assert_eq!((both.checked, both.bad, both.max_abs_error), (15, 3, 1.0));
        assert_eq!(both.first_bad, Some(bad(0, 9)));
    }

    // An output with fewer elements checked than the message has does not pass.
    #[test]
    fn a_short_check_does_not_pass() {
        let tally = Tally {
            checked: 9,
            ..Tally::default()
        };
        assert!(!tally.passed(10));
        assert!(tally.passed(9));
    }
}
