//! `layernorm_rows`: layer normalisation of each row of an M x N matrix,
//! `y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) * weight[j] + bias[j]`
//! with the biased variance (divided by N), as `torch.nn.functional.layer_norm`.
//!
//! Buffers `x` (M x N), `weight` and `bias` (N each), output `y`; the scalar
//! `eps` = 1e-5 is passed as a `float`. Element types `f32` and `bf16`
//! (kernels accumulate in float32).
//!
//! Float32 rows hold `c_r + u`, one offset `c_r` per row uniform in
//! [250, 1000) and `u` uniform in [-1, 1): a mean far larger than the
//! spread, as activations with a large common component have. The variance
//! is then about 1/3 while the mean squared is up to 10^6, so the one-pass
//! form E[x^2] - mean^2 in float32 loses every digit (float32 spacing at
//! 10^6 is 0.0625) and fails; Welford's update, or a second pass over x -
//! mean, does not. bf16 cannot hold such rows (its spacing at 512 is 4), so
//! bf16 offsets are uniform in [-2, 2). Weights are uniform in [0.5, 1.5),
//! biases in [-0.5, 0.5), each drawn from its own stream.
//!
//! The check is per element: error = |y - ref| / (|ref| + s_r |w_j|) with
//! s_r = (|mean_r| + sd_r) / sqrt(var_r + eps), the size of the row's
//! values in units of its standard deviation. A float32 mean carries an
//! error of a few units of roundoff of |mean_r|, which the normalisation
//! multiplies by 1/sd_r: that is s_r units of roundoff in y, so dividing by
//! it makes the error independent of how far the data sits from zero.
//! Tolerance (16 + 4 sqrt(N)) 2^-24 (the sums over a row grow like
//! sqrt(N), as `sum_f32`'s do), plus 2^-8 for a bf16 output's rounding.

use super::draw::{self, map_rows};
use super::rowwise::{self, edge_shapes};
use super::{
    Bound, BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit,
    Prepared, Problem, Scalar, Shape, output,
};

/// The `eps` kernels receive.
pub const EPS: f32 = 1e-5;

/// See the module documentation.
pub struct LayernormRows;

impl Problem for LayernormRows {
    fn name(&self) -> &'static str {
        "layernorm_rows"
    }

    fn version(&self) -> u32 {
        1
    }

    fn summary(&self) -> &'static str {
        "layer norm of each row of x (rows x n) with weight, bias and eps into y"
    }

    fn dtypes(&self) -> &'static [Elem] {
        &[Elem::F32, Elem::BF16]
    }

    fn rowwise(&self) -> bool {
        true
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let Shape { rows, cols, .. } = instance.shape;
        let buffer = |name, len, role| BufferSpec {
            name,
            elem: instance.dtype,
            len,
            role,
        };
        vec![
            buffer("x", rows * cols, BufferRole::Input),
            buffer("weight", cols, BufferRole::Input),
            buffer("bias", cols, BufferRole::Input),
            buffer("y", rows * cols, BufferRole::Output(OutputInit::Poison)),
        ]
    }

    fn scalars(&self) -> Vec<(&'static str, Scalar)> {
        vec![("eps", Scalar::F32(EPS))]
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let Shape { rows, cols, .. } = instance.shape;
        let dtype = instance.dtype;
        let offsets = if dtype == Elem::F32 {
            (250.0, 1000.0)
        } else {
            (-2.0, 2.0)
        };
        let n = rows * cols;
        let x = HostData::from_f32(
            dtype,
            draw::offset_rows(
                &draw::generator(seed, 0, n),
                rows,
                cols,
                offsets,
                (-1.0, 1.0),
            ),
        );
        let weight = draw::uniform(&draw::generator(seed, 1, n), cols, 0.5, 1.5);
        let bias = draw::uniform(&draw::generator(seed, 2, n), cols, -0.5, 0.5);
        let c = cols as usize;
        let eps = f64::from(EPS);
        let stats = map_rows(rows, |r| {
            let row = |j| x.get(r * c + j);
            let mean = (0..c).map(row).sum::<f64>() / c as f64;
            let var = (0..c).map(|j| (row(j) - mean).powi(2)).sum::<f64>() / c as f64;
            let rstd = 1.0 / (var + eps).sqrt();
            [mean, rstd, (mean.abs() + var.sqrt()) * rstd]
        });
        Prepared {
            inputs: vec![
                ("x".to_string(), x),
                ("weight".to_string(), HostData::from_f32(dtype, weight)),
                ("bias".to_string(), HostData::from_f32(dtype, bias)),
            ],
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
        let output_rounding = if instance.dtype == Elem::F32 {
            0.0
        } else {
            instance.dtype.unit_roundoff()
        };
        let tolerance = output_rounding
            + (16.0 + 4.0 * (cols.max(1) as f64).sqrt()) * Elem::F32.unit_roundoff();
        let (Some(x), Some(w), Some(b), Some(y)) = (
            prepared.input("x"),
            prepared.input("weight"),
            prepared.input("bias"),
            output(outputs, "y"),
        ) else {
            return rowwise::missing();
        };
        let c = cols as usize;
        let worst = rowwise::worst(rows, cols, |r, j| {
            let stats = &prepared.reference[3 * r..3 * r + 3];
            let (mean, rstd, scale) = (stats[0], stats[1], stats[2]);
            let i = r * c + j;
            let want = (x.get(i) - mean) * rstd * w.get(j) + b.get(j);
            let got = y.get(i);
            let size = want.abs() + scale * w.get(j).abs();
            (super::relative_error(got, want, size), want, got)
        });
        let (error, i, want, got) = worst;
        CheckOutcome {
            error,
            tolerance,
            pass: error <= tolerance,
            detail: format!(
                "largest error at row {}, column {}: expected {want:.6}, got {got}",
                i / c,
                i % c
            ),
        }
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        let Shape { rows, cols, .. } = instance.shape;
        (2 * rows * cols + 2 * cols) * instance.dtype.bytes()
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
        edge_shapes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layer norm of every row in float32, the variance either from a
    /// second pass (Welford's result) or as E[x^2] - mean^2 in one pass.
    fn float_layernorm(p: &Prepared, cols: usize, one_pass: bool) -> Vec<f32> {
        let get = |name, i| p.input(name).unwrap().get(i) as f32;
        let x: Vec<f32> = (0..p.input("x").unwrap().len())
            .map(|i| get("x", i))
            .collect();
        x.chunks(cols)
            .flat_map(|row| {
                let n = cols as f32;
                let mean = row.iter().sum::<f32>() / n;
                let var = if one_pass {
                    row.iter().map(|v| v * v).sum::<f32>() / n - mean * mean
                } else {
                    row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n
                };
                let rstd = 1.0 / (var + EPS).sqrt();
                (0..cols)
                    .map(|j| (row[j] - mean) * rstd * get("weight", j) + get("bias", j))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn check(i: &Instance, p: &Prepared, y: Vec<f32>) -> CheckOutcome {
        let y = HostData::from_f32(i.dtype, y);
        LayernormRows.check(i, p, &[("y", &y)], Data::Timed)
    }

    // Two passes in float32 pass at every shape with a mean near 1000; the
    // one-pass variance loses its digits and fails.
    #[test]
    fn the_one_pass_variance_fails_on_a_large_mean() {
        let i = Instance {
            shape: Shape::rows(8, 1024),
            dtype: Elem::F32,
        };
        let p = LayernormRows.prepare(&i, 5, Data::Timed);
        assert!(check(&i, &p, float_layernorm(&p, 1024, false)).pass);
        let naive = check(&i, &p, float_layernorm(&p, 1024, true));
        assert!(!naive.pass, "{naive:?}");
        for shape in edge_shapes() {
            let i = Instance {
                shape,
                dtype: Elem::F32,
            };
            let p = LayernormRows.prepare(&i, 5, Data::Exact);
            let c = check(&i, &p, float_layernorm(&p, shape.cols as usize, false));
            assert!(c.pass, "{shape:?}: {c:?}");
        }
    }

    // bf16 rounding of the output passes; a missing bias fails.
    #[test]
    fn bf16_rounding_passes_and_a_missing_bias_fails() {
        let i = Instance {
            shape: Shape::rows(4, 1000),
            dtype: Elem::BF16,
        };
        let p = LayernormRows.prepare(&i, 2, Data::Timed);
        let y = float_layernorm(&p, 1000, false);
        assert!(check(&i, &p, y.clone()).pass);
        let b = p.input("bias").unwrap().get(0) as f32;
        let mut off = y;
        off[0] -= b;
        assert!(!check(&i, &p, off).pass);
    }

    // The check holds its documented bound, (16 + 4 sqrt(cols)) u of
    // float32 relative to |want| + s_r |weight_j| (and one rounding of the
    // output more in bf16): an element off by half of it passes, one off by
    // 1.5 times it fails, and the detail names that element's row and
    // column. The element is in the column of the smallest weight (about
    // 0.5), where the allowance is smallest: the weight scales it.
    #[test]
    fn the_tolerance_is_the_documented_bound() {
        let (rows, cols) = (4usize, 1000usize);
        let bound = (16.0 + 4.0 * (cols as f64).sqrt()) * 2f64.powi(-24);
        let i = Instance {
            shape: Shape {
                rows: rows as u64,
                cols: cols as u64,
                dims: None,
            },
            dtype: Elem::F32,
        };
        let p = LayernormRows.prepare(&i, 2, Data::Timed);
        let get = |name, k| p.input(name).unwrap().get(k);
        let want_and_size = |k: usize| {
            let (r, j) = (k / cols, k % cols);
            let (mean, rstd, scale) = (
                p.reference[3 * r],
                p.reference[3 * r + 1],
                p.reference[3 * r + 2],
            );
            let want = (get("x", k) - mean) * rstd * get("weight", j) + get("bias", j);
            (want, want.abs() + scale * get("weight", j).abs())
        };
        let column = (0..cols)
            .min_by(|&a, &b| get("weight", a).total_cmp(&get("weight", b)))
            .unwrap();
        let at = 2 * cols + column;
        let off_by = |k: f64| {
            let mut y: Vec<f32> = (0..rows * cols)
                .map(|e| want_and_size(e).0 as f32)
                .collect();
            let (want, size) = want_and_size(at);
            y[at] = (want + k * bound * size) as f32;
            y
        };
        let near = check(&i, &p, off_by(0.5));
        assert!(near.pass && near.tolerance == bound, "{near:?}");
        let far = check(&i, &p, off_by(1.5));
        assert!(!far.pass, "{far:?}");
        let named = format!("at row 2, column {column}:");
        assert!(far.detail.contains(&named), "{}", far.detail);
        let b = Instance {
            dtype: Elem::BF16,
            ..i
        };
        let bf16 = LayernormRows.prepare(&b, 2, Data::Timed);
        let rounded = check(&b, &bf16, float_layernorm(&bf16, cols, false));
        assert_eq!(rounded.tolerance, bound + Elem::BF16.unit_roundoff());
    }
}
