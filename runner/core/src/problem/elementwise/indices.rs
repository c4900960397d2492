//! Index inputs of `[elementwise]`: positions in [0, n) as `int`, drawn
//! from an input's own seeded stream.

use super::spec::IndexDraw;
use crate::problem::draw::Distribution;
use crate::problem::{Elem, HostData};

/// `n` positions drawn as `how` from `rng`, as `int`s: a permutation is
/// one cycle through every position ([`Distribution::Cycle`], Sattolo's
/// algorithm), so that for n > 1 no position maps to itself; uniform
/// positions are [`Distribution::UniformInt`] over [0, n).
pub fn draw(how: IndexDraw, rng: &rand_pcg::Pcg64Mcg, n: u64) -> HostData {
    let distribution = match how {
        IndexDraw::Permutation => Distribution::Cycle,
        IndexDraw::Uniform => Distribution::UniformInt { lo: 0, hi: n },
    };
    distribution.draw(rng, Elem::I32, n)
}

/// A generator for tests.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> rand_pcg::Pcg64Mcg {
    use rand::SeedableRng;
    rand_pcg::Pcg64Mcg::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    fn positions(how: IndexDraw, seed: u64, n: u64) -> Vec<i32> {
        match draw(how, &test_rng(seed), n) {
            HostData::I32(p) => p,
            other => panic!("index inputs are int: {:?}", other.elem()),
        }
    }

    // A permutation holds every position once and none in place; uniform
    // positions stay in range, are the sequential stream on any number of
    // threads, and repeat some positions.
    #[test]
    fn permutations_move_every_position_and_uniform_ones_repeat() {
        let n = 100_003u64;
        let p = positions(IndexDraw::Permutation, 1, n);
        let mut seen = vec![false; n as usize];
        for (k, &v) in p.iter().enumerate() {
            assert_ne!(v as usize, k, "a fixed point at {k}");
            assert!(!seen[v as usize], "{v} twice");
            seen[v as usize] = true;
        }
        // One cycle: following it from 0 visits all n.
        let (mut at, mut steps) = (0usize, 0u64);
        loop {
            at = p[at] as usize;
            steps += 1;
            if at == 0 {
                break;
            }
        }
        assert_eq!(steps, n);
        assert_eq!(positions(IndexDraw::Permutation, 1, 1), [0]);
        let u = positions(IndexDraw::Uniform, 2, n);
        assert!(u.iter().all(|&v| (0..n as i32).contains(&v)));
        let mut seq = test_rng(2);
        let sequential: Vec<i32> = (0..n)
            .map(|_| ((u128::from(seq.next_u64()) * u128::from(n)) >> 64) as i32)
            .collect();
        assert_eq!(u, sequential);
        let mut sorted = u.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(sorted.len() < n as usize * 7 / 10, "about 63% distinct");
    }
}
