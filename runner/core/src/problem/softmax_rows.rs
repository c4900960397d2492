//! `softmax_rows`: the softmax of each row of an M x N matrix,
//! `y[r][j] = exp(x[r][j] - max_r) / sum_k exp(x[r][k] - max_r)`.
//!
//! Element types: `f32`, and `bf16` in and out (kernels accumulate in
//! float32). Row r holds `c_r + u` with one offset `c_r` per row uniform in
//! [50, 100) and `u` uniform in [-8, 8): logits far from zero, so that a
//! kernel that skips subtracting the maximum overflows float32 (exp(88.8)
//! is already infinite) and fails.
//!
//! The reference is float64, from the very values the kernel reads (after
//! rounding to bf16, for bf16). The check is per element: the relative
//! error |y - ref| / ref, largest over the matrix. Every reference value is
//! at least e^-16 / N, so the relative error is defined everywhere, and
//! because each element is checked on its own, an element dropped, written
//! twice or written to the wrong place fails, which a sum's tolerance
//! cannot promise.
//!
//! Tolerance: (8 + 4 sqrt(N)) u with u = 2^-24. `expf` is within 2 ulp and
//! the subtraction `x - max` is exact here (Sterbenz: both lie within a
//! factor of two), which the 8 covers with room for the division; the row's
//! sum of N exponentials carries a rounding error that grows like sqrt(N)
//! (the same probabilistic bound as `sum_f32`) and divides every element.
//! A bf16 output adds one rounding of the result, 2^-8 relative. There are
//! no inputs for which every correct kernel is exact, so the edge shapes
//! are held to the same tolerance on the same kind of data.

use super::draw::{self, map_rows};
use super::rowwise;
use super::{
    Bound, BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit,
    Prepared, Problem, Shape, output,
};

/// See the module documentation.
pub struct SoftmaxRows;

impl Problem for SoftmaxRows {
    fn name(&self) -> &'static str {
        "softmax_rows"
    }

    fn version(&self) -> u32 {
        1
    }

    fn summary(&self) -> &'static str {
        "the softmax of each row of x (rows x n) into y"
    }

    fn dtypes(&self) -> &'static [Elem] {
        &[Elem::F32, Elem::BF16]
    }

    fn rowwise(&self) -> bool {
        true
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let len = instance.shape.elements();
        vec![
            BufferSpec {
                name: "x",
                elem: instance.dtype,
                len,
                role: BufferRole::Input,
            },
            BufferSpec {
                name: "y",
                elem: instance.dtype,
                len,
                role: BufferRole::Output(OutputInit::Poison),
            },
        ]
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let Shape { rows, cols, .. } = instance.shape;
        let rng = draw::generator(seed, 0, rows * cols);
        let x = HostData::from_f32(
            instance.dtype,
            draw::offset_rows(&rng, rows, cols, (50.0, 100.0), (-8.0, 8.0)),
        );
        let c = cols as usize;
        let stats = map_rows(rows, |r| {
            let row = |j| x.get(r * c + j);
            let max = (0..c).map(row).fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = (0..c).map(|j| (row(j) - max).exp()).sum();
            [max, sum]
        });
        Prepared {
            inputs: vec![("x".to_string(), x)],
            reference: stats.into_iter().flatten().collect(),
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let Shape { rows, cols, .. } = instance.shape;
        let tolerance = tolerance(instance.dtype, cols);
        let (Some(x), Some(y)) = (prepared.input("x"), output(outputs, "y")) else {
            return rowwise::missing();
        };
        let c = cols as usize;
        let worst = rowwise::worst(rows, cols, |r, j| {
            let (max, sum) = (prepared.reference[2 * r], prepared.reference[2 * r + 1]);
            let i = r * c + j;
            let want = (x.get(i) - max).exp() / sum;
            let got = y.get(i);
            (super::relative_error(got, want, want), want, got)
        });
        let (error, i, want, got) = worst;
        CheckOutcome {
            error,
            tolerance,
            pass: error <= tolerance,
            detail: format!(
                "largest relative error at row {}, column {}: expected {want:.6e}, got {got:e}",
                i / c,
                i % c
            ),
        }
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        2 * instance.shape.elements() * instance.dtype.bytes()
    }

    fn work(&self, instance: &Instance) -> Vec<(&'static str, f64)> {
        vec![
            ("elements", instance.shape.elements() as f64),
            ("rows", instance.shape.rows as f64),
        ]
    }

    fn bound(&self) -> Bound {
        Bound::Copy
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        rowwise::edge_shapes()
    }
}

/// (8 + 4 sqrt(N)) 2^-24, plus one rounding of the output when it is
/// narrower than float32.
fn tolerance(dtype: Elem, cols: u64) -> f64 {
    let output = if dtype == Elem::F32 {
        0.0
    } else {
        dtype.unit_roundoff()
    };
    output + (8.0 + 4.0 * (cols.max(1) as f64).sqrt()) * Elem::F32.unit_roundoff()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(rows: u64, cols: u64, dtype: Elem) -> Instance {
        Instance {
            shape: Shape::rows(rows, cols),
            dtype,
        }
    }

    /// Softmax of every row in float32, with or without the maximum.
    fn float_softmax(x: &HostData, cols: usize, subtract_max: bool) -> Vec<f32> {
        let x: Vec<f32> = (0..x.len()).map(|i| x.get(i) as f32).collect();
        x.chunks(cols)
            .flat_map(|row| {
                let m = if subtract_max {
                    row.iter().copied().fold(f32::NEG_INFINITY, f32::max)
                } else {
                    0.0
                };
                let s: f32 = row.iter().map(|v| (v - m).exp()).sum();
                row.iter()
                    .map(move |v| (v - m).exp() / s)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn check(i: &Instance, p: &Prepared, y: Vec<f32>) -> CheckOutcome {
        let y = HostData::from_f32(i.dtype, y);
        SoftmaxRows.check(i, p, &[("y", &y)], Data::Timed)
    }

    // A float32 softmax that subtracts the maximum passes at every edge
    // shape; one that does not overflows wherever a row's offset is above
    // about 80, which among 7 rows or more some always is, and fails.
    #[test]
    fn the_maximum_must_be_subtracted() {
        for shape in rowwise::edge_shapes() {
            let i = instance(shape.rows, shape.cols, Elem::F32);
            let p = SoftmaxRows.prepare(&i, 3, Data::Exact);
            let x = p.input("x").unwrap();
            let c = check(&i, &p, float_softmax(x, shape.cols as usize, true));
            assert!(c.pass, "{shape:?}: {c:?}");
            if shape.rows >= 7 {
                let naive = check(&i, &p, float_softmax(x, shape.cols as usize, false));
                assert!(!naive.pass, "{shape:?}");
            }
        }
    }

    // One element written to the wrong place fails; bf16 output rounding
    // passes.
    #[test]
    fn a_misplaced_element_fails_and_bf16_rounding_passes() {
        let i = instance(4, 1000, Elem::F32);
        let p = SoftmaxRows.prepare(&i, 1, Data::Timed);
        let mut y = float_softmax(p.input("x").unwrap(), 1000, true);
        y.swap(17, 18);
        let c = check(&i, &p, y);
        assert!(
            !c.pass && c.detail.contains("row 0, column 1"),
            "{}",
            c.detail
        );
        let b = instance(4, 1000, Elem::BF16);
        let p = SoftmaxRows.prepare(&b, 1, Data::Timed);
        let c = check(&b, &p, float_softmax(p.input("x").unwrap(), 1000, true));
        assert!(c.pass, "{c:?}");
    }

    // The check holds its documented bound, (8 + 4 sqrt(cols)) u of float32
    // and one rounding of the output more in bf16: an element off by half
    // of it (relative) passes, one off by twice it fails, and the detail
    // names that element's row and column.
    #[test]
    fn the_tolerance_is_the_documented_bound() {
        let cols = 1000;
        let bound = (8.0 + 4.0 * (cols as f64).sqrt()) * 2f64.powi(-24);
        let i = instance(4, cols, Elem::F32);
        let p = SoftmaxRows.prepare(&i, 2, Data::Timed);
        let x = p.input("x").unwrap();
        let c = cols as usize;
        let want: Vec<f64> = (0..4 * c)
            .map(|k| (x.get(k) - p.reference[2 * (k / c)]).exp() / p.reference[2 * (k / c) + 1])
            .collect();
        let at = 2 * c + 500;
        let off_by = |k: f64| {
            let mut y: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            y[at] = (want[at] * (1.0 + k * bound)) as f32;
            y
        };
        let near = check(&i, &p, off_by(0.5));
        assert!(near.pass && near.tolerance == bound, "{near:?}");
        let far = check(&i, &p, off_by(2.0));
        assert!(!far.pass, "{far:?}");
        assert!(
            far.detail.contains("at row 2, column 500:"),
            "{}",
            far.detail
        );
        let b = instance(4, cols, Elem::BF16);
        let bf16 = SoftmaxRows.prepare(&b, 2, Data::Timed);
        let rounded = check(&b, &bf16, float_softmax(bf16.input("x").unwrap(), c, true));
        assert_eq!(rounded.tolerance, bound + Elem::BF16.unit_roundoff());
    }

    // Where several elements share the largest error (here NaN from column
    // 17 of rows 2 and 3 on, all infinitely wrong), the detail names the
    // first of them: where the kernel's output first went wrong.
    #[test]
    fn the_first_of_equally_wrong_elements_is_named() {
        let i = instance(4, 1000, Elem::F32);
        let p = SoftmaxRows.prepare(&i, 1, Data::Timed);
        let mut y = float_softmax(p.input("x").unwrap(), 1000, true);
        for v in &mut y[2 * 1000 + 17..] {
            *v = f32::NAN;
        }
        let c = check(&i, &p, y);
        assert!(!c.pass && c.error == f64::INFINITY, "{c:?}");
        assert!(c.detail.contains("at row 2, column 17:"), "{}", c.detail);
    }
}
