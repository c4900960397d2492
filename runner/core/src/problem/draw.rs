//! Shared helpers of problems: seeded inputs drawn on every core, each
//! input from its own stream, and work split over rows on every core.

use rand::{Rng, SeedableRng};

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
}
