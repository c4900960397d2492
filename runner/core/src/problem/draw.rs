//! Shared helpers of problems: seeded inputs drawn on every core, each
//! input from its own stream, and work split over rows on every core.

use super::{Elem, HostData};
use rand::{Rng, SeedableRng};

/// Seed of every input the runner draws; fixed so that a result is
/// reproducible (and a problem's inputs stay bit-identical).
pub const INPUT_SEED: u64 = 0x5eed_cafe;

/// The generator of stream `stream` (one per input buffer, so that two
/// inputs never hold the same values) at size `n` from `seed`.
pub fn generator(seed: u64, stream: u64, n: u64) -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(
        seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03),
    )
}

/// `len` values uniform in [lo, hi) from `rng`, drawn on every core: each
/// thread jumps the generator to its first element, so the values are those
/// of one sequential stream whatever the number of threads.
pub fn uniform(rng: &rand_pcg::Pcg64Mcg, len: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = vec![0.0f32; len as usize];
    let per_thread = x.len().div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        for (i, part) in x.chunks_mut(per_thread).enumerate() {
            let mut rng = rng.clone();
            rng.advance((i * per_thread) as u128);
            scope.spawn(move || {
                part.iter_mut()
                    .for_each(|v| *v = lo + (hi - lo) * rng.random::<f32>())
            });
        }
    });
    x
}

/// `rows` x `cols` values, row r being `offset[r] + u` with `u` uniform in
/// [lo, hi) and one offset per row uniform in [offset_lo, offset_hi): rows
/// whose mean sits far from zero, as activations often do.
pub fn offset_rows(
    rng: &rand_pcg::Pcg64Mcg,
    rows: u64,
    cols: u64,
    (offset_lo, offset_hi): (f32, f32),
    (lo, hi): (f32, f32),
) -> Vec<f32> {
    let mut offsets_rng = rng.clone();
    offsets_rng.advance(rows as u128 * cols as u128);
    let offsets = uniform(&offsets_rng, rows, offset_lo, offset_hi);
    let mut x = uniform(rng, rows * cols, lo, hi);
    for_each_row(&mut x, cols, |r, row| {
        row.iter_mut().for_each(|v| *v += offsets[r]);
    });
    x
}

/// Calls `f(r, row)` for every row of `x` (rows of `cols` elements), on
/// every core.
pub fn for_each_row<T: Send>(x: &mut [T], cols: u64, f: impl Fn(usize, &mut [T]) + Sync) {
    let cols = cols.max(1) as usize;
    let rows = x.len() / cols;
    let per_thread = rows.div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        for (t, part) in x.chunks_mut(per_thread * cols).enumerate() {
            let f = &f;
            scope.spawn(move || {
                for (i, row) in part.chunks_mut(cols).enumerate() {
                    f(t * per_thread + i, row);
                }
            });
        }
    });
}

/// `f(r)` for every row `r` below `rows`, computed on every core, in order.
pub fn map_rows<T: Send>(rows: u64, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let rows = rows as usize;
    let per_thread = rows.div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..rows)
            .step_by(per_thread)
            .map(|start| {
                let f = &f;
                scope.spawn(move || {
                    (start..(start + per_thread).min(rows))
                        .map(f)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a row thread panicked"))
            .collect()
    })
}

/// Threads for input generation, references and checks.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The generator of the buffer called `name` at size `n` from `seed`:
/// each buffer its own stream, derived from the run's seed and the
/// buffer's name, so that adding a buffer to a problem leaves the others'
/// values as they were. (The problems written before it keep their
/// numbered streams, [`generator`], so that their inputs stay
/// bit-identical.)
pub fn generator_named(seed: u64, name: &str, n: u64) -> rand_pcg::Pcg64Mcg {
    generator(seed, xxhash_rust::xxh3::xxh3_64(name.as_bytes()), n)
}

/// How a problem draws one input buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Floats uniform in [lo, hi).
    Uniform {
        /// Lowest value.
        lo: f64,
        /// Bound above, never reached.
        hi: f64,
    },
    /// Whole numbers uniform in [lo, hi).
    UniformInt {
        /// Lowest value.
        lo: u64,
        /// Bound above, never reached.
        hi: u64,
    },
    /// A share of the elements (`share`, in [0, 1]) equal to `value`, each
    /// element independently; the rest whole numbers uniform in [lo, hi)
    /// (where `value` may fall too): the data a histogram of skewed input
    /// gets.
    Skewed {
        /// The share of elements that are `value`.
        share: f64,
        /// The value most elements take.
        value: u64,
        /// Lowest value of the rest.
        lo: u64,
        /// Bound above of the rest.
        hi: u64,
    },
    /// A permutation of 0..n (n at most 2^32), uniform among all
    /// (Fisher-Yates).
    Permutation,
    /// One random cycle through all n slots: `next[i]` is a permutation in
    /// which following `next` from any slot visits every slot once before
    /// returning (Sattolo's algorithm, uniform among such cycles): the
    /// chain of a pointer chase.
    Cycle,
}

impl Distribution {
    /// `len` elements of type `elem` from `rng`. Uniform and skewed data
    /// are drawn on every core (each element from a fixed number of the
    /// stream's values, so the result is that of one sequential stream);
    /// permutations and cycles are sequential.
    pub fn draw(&self, rng: &rand_pcg::Pcg64Mcg, elem: Elem, len: u64) -> HostData {
        match *self {
            Distribution::Uniform { lo, hi } => {
                if elem == Elem::F64 {
                    let mut x = vec![0.0f64; len as usize];
                    fill_parallel(rng, &mut x, 1, |r| lo + (hi - lo) * r.random::<f64>());
                    HostData::F64(x)
                } else {
                    HostData::from_f32(elem, uniform(rng, len, lo as f32, hi as f32))
                }
            }
            Distribution::UniformInt { lo, hi } => {
                integers(rng, elem, len, 1, move |r| below(r, lo, hi))
            }
            Distribution::Skewed {
                share,
                value,
                lo,
                hi,
            } => integers(rng, elem, len, 2, move |r| {
                let pick = r.random::<f64>() < share;
                let other = below(r, lo, hi);
                if pick { value } else { other }
            }),
            Distribution::Permutation => shuffled(rng, elem, len, |i| i + 1),
            // j < i, never i itself: what makes it one cycle.
            Distribution::Cycle => shuffled(rng, elem, len, |i| i),
        }
    }

    /// In words, for pages and messages: `uniform in [0, 256)`.
    pub fn describe(&self) -> String {
        match *self {
            Distribution::Uniform { lo, hi } => format!("uniform in [{lo}, {hi})"),
            Distribution::UniformInt { lo, hi } => format!("whole numbers uniform in [{lo}, {hi})"),
            Distribution::Skewed {
                share,
                value,
                lo,
                hi,
            } => format!(
                "{}% of the elements {value}, the rest uniform in [{lo}, {hi})",
                share * 100.0
            ),
            Distribution::Permutation => "a random permutation of 0..n".into(),
            Distribution::Cycle => "one random cycle through all slots".into(),
        }
    }
}

/// A whole number uniform in [lo, hi) from one value of `rng` (the high
/// half of a 64 x 64-bit product: a bias of at most (hi - lo) / 2^64, far
/// below anything a check sees, for a fixed use of the stream per element).
fn below(rng: &mut rand_pcg::Pcg64Mcg, lo: u64, hi: u64) -> u64 {
    let span = hi.saturating_sub(lo).max(1);
    lo + ((u128::from(rng.random::<u64>()) * u128::from(span)) >> 64) as u64
}

/// `len` whole numbers, element i from `per` values of the stream at
/// `per * i`, stored as `elem` (values past the type wrap, which the
/// distributions' ranges avoid), drawn on every core straight into the
/// element type (no wider copy of a large input).
fn integers(
    rng: &rand_pcg::Pcg64Mcg,
    elem: Elem,
    len: u64,
    per: u128,
    f: impl Fn(&mut rand_pcg::Pcg64Mcg) -> u64 + Sync,
) -> HostData {
    fn drawn<T: Send + Copy + Default>(
        rng: &rand_pcg::Pcg64Mcg,
        len: u64,
        per: u128,
        f: impl Fn(&mut rand_pcg::Pcg64Mcg) -> T + Sync,
    ) -> Vec<T> {
        let mut x = vec![T::default(); len as usize];
        fill_parallel(rng, &mut x, per, f);
        x
    }
    match elem {
        Elem::U8 => HostData::U8(drawn(rng, len, per, |r| f(r) as u8)),
        Elem::U32 => HostData::U32(drawn(rng, len, per, |r| f(r) as u32)),
        Elem::I32 => HostData::I32(drawn(rng, len, per, |r| f(r) as i32)),
        Elem::F64 => HostData::F64(drawn(rng, len, per, |r| f(r) as f64)),
        other => HostData::from_f32(other, drawn(rng, len, per, |r| f(r) as f32)),
    }
}

/// A shuffle of 0..len (at most 2^32 slots) from `rng`, sequential:
/// Fisher-Yates, each slot i from the top down swapped with one drawn
/// below `bound(i)` (i + 1: a uniform permutation; i: Sattolo's algorithm,
/// a uniform single cycle).
fn shuffled(
    rng: &rand_pcg::Pcg64Mcg,
    elem: Elem,
    len: u64,
    bound: impl Fn(u64) -> u64,
) -> HostData {
    let mut rng = rng.clone();
    let mut x: Vec<u32> = (0..len).map(|i| i as u32).collect();
    for i in (1..x.len()).rev() {
        let j = below(&mut rng, 0, bound(i as u64)) as usize;
        x.swap(i, j);
    }
    match elem {
        Elem::U32 => HostData::U32(x),
        Elem::I32 => HostData::I32(x.into_iter().map(|v| v as i32).collect()),
        Elem::F64 => HostData::F64(x.into_iter().map(f64::from).collect()),
        other => HostData::from_f32(other, x.into_iter().map(|v| v as f32).collect()),
    }
}

/// Fills `x` on every core, element i from the stream's values
/// `per * i ..`: `f` must take exactly `per` values for each element.
fn fill_parallel<T: Send>(
    rng: &rand_pcg::Pcg64Mcg,
    x: &mut [T],
    per: u128,
    f: impl Fn(&mut rand_pcg::Pcg64Mcg) -> T + Sync,
) {
    let per_thread = x.len().div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        for (i, part) in x.chunks_mut(per_thread).enumerate() {
            let mut rng = rng.clone();
            rng.advance(per * (i * per_thread) as u128);
            let f = &f;
            scope.spawn(move || part.iter_mut().for_each(|v| *v = f(&mut rng)));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    // The parallel draw is the sequential stream, and streams differ.
    #[test]
    fn parallel_draw_is_the_sequential_stream_and_streams_differ() {
        let rng = generator(5, 0, 100_003);
        let mut seq = rng.clone();
        let expected: Vec<f32> = (0..100_003).map(|_| 2.0 * seq.random::<f32>()).collect();
        let got = uniform(&rng, 100_003, 0.0, 2.0);
        assert_eq!(got, expected);
        assert_ne!(uniform(&generator(5, 1, 100_003), 8, 0.0, 2.0), got[..8]);
    }

    // Rows get their own offset; map_rows keeps the order.
    #[test]
    fn rows_are_offset_and_mapped_in_order() {
        let x = offset_rows(&generator(1, 0, 64), 4, 16, (100.0, 200.0), (-1.0, 1.0));
        for row in x.chunks(16) {
            let mean = row.iter().sum::<f32>() / 16.0;
            assert!((99.0..201.0).contains(&mean), "{mean}");
        }
        assert_eq!(
            map_rows(10, |r| r * 2),
            (0..10).map(|r| r * 2).collect::<Vec<_>>()
        );
    }

    // The parallel draw of every distribution is that of one sequential
    // stream: the same values on any number of threads.
    #[test]
    fn distributions_draw_the_sequential_stream() {
        let rng = generator_named(3, "x", 10_007);
        let d = Distribution::Skewed {
            share: 0.875,
            value: 7,
            lo: 0,
            hi: 256,
        };
        let got = d.draw(&rng, Elem::U8, 10_007);
        let mut seq = rng.clone();
        let expected: Vec<u8> = (0..10_007)
            .map(|_| {
                let pick = seq.random::<f64>() < 0.875;
                let other = below(&mut seq, 0, 256);
                if pick { 7 } else { other as u8 }
            })
            .collect();
        assert_eq!(got, HostData::U8(expected));
        let ints = Distribution::UniformInt { lo: 5, hi: 9 }.draw(&rng, Elem::U32, 1000);
        assert!((0..1000).all(|i| (5.0..9.0).contains(&ints.get(i))));
        assert!((0..1000).any(|i| ints.get(i) == 8.0) && (0..1000).any(|i| ints.get(i) == 5.0));
    }

    // A skewed draw gives the share asked for to its value.
    #[test]
    fn skew_gives_its_share() {
        let d = Distribution::Skewed {
            share: 0.875,
            value: 42,
            lo: 0,
            hi: 256,
        };
        let x = d.draw(&generator_named(1, "x", 1 << 16), Elem::U8, 1 << 16);
        let hits = (0..x.len()).filter(|&i| x.get(i) == 42.0).count() as f64 / x.len() as f64;
        // 7/8 picked, plus 1/256 of the other eighth.
        assert!((hits - (0.875 + 0.125 / 256.0)).abs() < 0.01, "{hits}");
    }

    // A permutation holds every index once; a cycle is one cycle through
    // every slot (following next[] from slot 0 returns after exactly n).
    #[test]
    fn permutations_are_permutations_and_cycles_are_one_cycle() {
        for n in [1u64, 2, 3, 1000, 4099] {
            let rng = generator_named(9, "next", n);
            let p = Distribution::Permutation.draw(&rng, Elem::U32, n);
            let mut seen = vec![false; n as usize];
            (0..p.len()).for_each(|i| seen[p.get(i) as usize] = true);
            assert!(seen.iter().all(|&s| s), "n = {n}");
            let c = Distribution::Cycle.draw(&rng, Elem::U32, n);
            let (mut at, mut steps) = (0usize, 0u64);
            loop {
                at = c.get(at) as usize;
                steps += 1;
                if at == 0 {
                    break;
                }
                assert!(steps <= n, "n = {n}: longer than n, so not a permutation");
            }
            assert_eq!(steps, n, "n = {n}: a shorter cycle leaves slots out");
        }
        // A plain permutation is almost never one cycle.
        let p = Distribution::Permutation.draw(&generator_named(9, "next", 1000), Elem::U32, 1000);
        assert!((0..1000).any(|i| p.get(i) as usize == i) || p.get(p.get(0) as usize) != 0.0);
    }

    // Buffers named differently draw different values; the same name the
    // same values.
    #[test]
    fn named_streams_are_independent_and_repeatable() {
        let d = Distribution::Uniform { lo: 0.0, hi: 1.0 };
        let x = d.draw(&generator_named(5, "x", 64), Elem::F32, 64);
        let y = d.draw(&generator_named(5, "y", 64), Elem::F32, 64);
        assert_ne!(x, y);
        assert_eq!(x, d.draw(&generator_named(5, "x", 64), Elem::F32, 64));
    }
}
