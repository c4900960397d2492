//! A fixed share of the book's examples, so that N GPU machines re-measure
//! one book side by side (`scripts/book --shard K/N`, or
//! `CUDA_MEASURED_SHARD=K/N`). Every machine builds the same commit, so
//! every one lists the same examples in the same reading order; machine K
//! owns the K-th of every N of them and measures those of its own that are
//! stale or missing. Ownership depends on the commit alone, not on what is
//! stale: a shard run again after an interruption measures what it still
//! owes, never another shard's example. No two machines measure one
//! example, every record is a file of its own, and the `results/` folders
//! they bring back merge without conflicts.

use std::fmt;
use std::str::FromStr;

/// Environment variable naming the share: `K/N`, 1 ≤ K ≤ N.
pub const ENV_SHARD: &str = "CUDA_MEASURED_SHARD";

/// Share K of N (1-based as written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K, from 1.
    pub index: usize,
    /// N, at least 1.
    pub count: usize,
}

/// Why a shard cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "shard {0:?} is not understood: write K/N with 1 <= K <= N (`--shard 2/3` measures the second of every three examples to measure)"
)]
pub struct ShardError(String);

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(text.to_string());
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether this shard owns the example at `position` among the book's
    /// examples in reading order (from 0): positions K-1, K-1+N, ...
    pub fn owns(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shards are written K/N; zero, K past N and other text are refused
    // with the form to write.
    #[test]
    fn shards_are_read_as_k_of_n() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        assert_eq!(" 1 / 1 ".parse(), Ok(Shard { index: 1, count: 1 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains("write K/N"), "{bad}: {e}");
        }
    }

    // N shards together own every example exactly once, each about a
    // third of eleven.
    #[test]
    fn shards_split_the_examples_without_overlap_or_gap() {
        let mut seen = Vec::new();
        for k in 1..=3 {
            let mine: Vec<usize> = (0..11)
                .filter(|&p| Shard { index: k, count: 3 }.owns(p))
                .collect();
            assert!((3..=4).contains(&mine.len()), "{mine:?}");
            seen.extend(mine);
        }
        seen.sort();
        assert_eq!(seen, (0..11).collect::<Vec<_>>());
    }
}
