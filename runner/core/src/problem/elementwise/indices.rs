//! Index inputs of `[elementwise]`: positions in [0, n) as `int`, drawn
//! from an input's own seeded stream.

use super::spec::IndexDraw;
use crate::problem::draw;
use rand::RngCore;

/// `n` positions drawn as `how` from `rng`.
pub fn draw(how: IndexDraw, rng: &rand_pcg::Pcg64Mcg, n: u64) -> Vec<i32> {
    match how {
        IndexDraw::Permutation => cycle(rng, n),
        IndexDraw::Uniform => uniform(rng, n),
    }
}

/// A position below `bound` from one 64-bit draw (multiply and shift:
/// one draw per value, biased by at most `bound` / 2^64).
fn below(rng: &mut rand_pcg::Pcg64Mcg, bound: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(bound)) >> 64) as u64
}

/// A permutation of 0..n that is one cycle through every position
/// (Sattolo's algorithm), so that for n > 1 no position maps to itself.
fn cycle(rng: &rand_pcg::Pcg64Mcg, n: u64) -> Vec<i32> {
    let mut rng = rng.clone();
    let mut p: Vec<i32> = (0..n).map(|k| k as i32).collect();
    for k in (1..p.len()).rev() {
        let j = below(&mut rng, k as u64) as usize;
        p.swap(k, j);
    }
    p
}

/// `n` positions uniform in [0, n), drawn on every core: each thread
/// jumps the generator to its first element (one draw per element), so
/// the values are those of one sequential stream.
fn uniform(rng: &rand_pcg::Pcg64Mcg, n: u64) -> Vec<i32> {
    let mut p = vec![0i32; n as usize];
    let per_thread = p.len().div_ceil(draw::threads()).max(1);
    std::thread::scope(|scope| {
        for (t, part) in p.chunks_mut(per_thread).enumerate() {
            let mut rng = rng.clone();
            rng.advance((t * per_thread) as u128);
            scope.spawn(move || part.iter_mut().for_each(|v| *v = below(&mut rng, n) as i32));
        }
    });
    p
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

    // A permutation holds every position once and none in place; uniform
    // positions stay in range, are the sequential stream on any number of
    // threads, and repeat some positions.
    #[test]
    fn permutations_move_every_position_and_uniform_ones_repeat() {
        let n = 100_003u64;
        let p = cycle(&test_rng(1), n);
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
        assert_eq!(cycle(&test_rng(1), 1), [0]);
        let u = uniform(&test_rng(2), n);
        assert!(u.iter().all(|&v| (0..n as i32).contains(&v)));
        let mut seq = test_rng(2);
        let sequential: Vec<i32> = (0..n).map(|_| below(&mut seq, n) as i32).collect();
        assert_eq!(u, sequential);
        let mut sorted = u.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(sorted.len() < n as usize * 7 / 10, "about 63% distinct");
    }
}
