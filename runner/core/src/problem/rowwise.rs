//! What the row-wise problems share: their edge shapes, the outcome when
//! a buffer is missing, and the search for the worst element of a check.

use super::draw::map_rows;
use super::{CheckOutcome, Shape};

/// Odd shapes: one column, a warp minus one, rows longer than a block's
/// threads and not a multiple of 4, and many short rows.
pub fn edge_shapes() -> Vec<Shape> {
    [(3, 1), (5, 31), (7, 1000), (2, 4099), (1000, 33)]
        .into_iter()
        .map(|(rows, cols)| Shape::rows(rows, cols))
        .collect()
}

/// The outcome when a buffer is missing (a problem bug, never the
/// kernel's).
pub fn missing() -> CheckOutcome {
    CheckOutcome {
        error: f64::INFINITY,
        tolerance: 0.0,
        pass: false,
        detail: "a buffer of the problem was missing".into(),
    }
}

/// The worst element of a `rows` x `cols` check, on every core: `judge(r,
/// j)` gives the element's error, its expected and its actual value; the
/// result is (error, flat index, expected, got) of the largest error
/// (NaN errors count as infinite).
pub fn worst(
    rows: u64,
    cols: u64,
    judge: impl Fn(usize, usize) -> (f64, f64, f64) + Sync,
) -> (f64, usize, f64, f64) {
    let c = cols as usize;
    let larger = |a: (f64, usize, f64, f64), b: (f64, usize, f64, f64)| {
        if b.0 > a.0 { b } else { a }
    };
    map_rows(rows, |r| {
        (0..c)
            .map(|j| {
                let (e, want, got) = judge(r, j);
                (e, r * c + j, want, got)
            })
            .fold((0.0, 0, 0.0, 0.0), larger)
    })
    .into_iter()
    .fold((0.0, 0, 0.0, 0.0), larger)
}
