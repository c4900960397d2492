//! `matmul_f32`: C = A B, with A of M x K, B of K x N and C of M x N, all
//! row-major float32. Dimensions `M`, `N`, `K` (sizes `"M = N = K =
//! 4096"` or `"4096x4096x4096"`); each is a launch variable and kernel
//! argument (`m`, `n`, `k`). The work is 2 M N K FLOP, and the figures are
//! TFLOP/s and its percentage of the FP32 FMA ceiling measured in the same
//! session ([`super::reports::FP32_FMA`]).
//!
//! Timed sizes: A and B uniform in [-1, 1), each its own stream. A float64
//! reference of every element at 4096^3 is 6.9 10^10 multiply-adds, a
//! minute of one CPU core, so the check holds a sample of whole rows and
//! whole columns of C: every [`STRIDE`]-th row (31) from row 3, and every
//! [`STRIDE`]-th column from column 3, so that any [`BAND`] (32)
//! consecutive rows hold a sampled row and any 32 consecutive columns a
//! sampled column, and the offset inside a 32-row (or 8-row) tile moves
//! from sample to sample. A kernel computes C in tiles (a block's tile of
//! 128 x 128, a thread's 8 x 8): a whole row crosses every tile of its
//! rows, and a whole column every tile of its columns, so a tile computed
//! wrong, written to the wrong place or not written at all is caught as
//! soon as it is [`BAND`] rows tall or [`BAND`] columns wide, wherever it
//! lies (one sample in every aligned band of 32 would not do: samples at
//! rows 3 and 42 leave rows 4 to 35 unseen); a thread's 8 x 8 register
//! tile lies on a sampled row or column about half the time, which is why
//! the edge shapes check every element. At 4096^3 the sample is 133 rows
//! and 133 columns, about 1/15 of C, and its reference about 4.5 10^9
//! multiply-adds, a second or two on the measuring machine's cores.
//!
//! The error of an element is |c - ref| / sum_k |a_ik| |b_kj| (the scale
//! of the products it sums: a cancelling sum is not held to a tighter
//! relative bound than its terms allow), held to (4 sqrt(K) + 8) u, u =
//! 2^-24: rounding errors of a K-term float32 dot product grow like sqrt(K)
//! in any order (as for `sum_f32`), and 8 u covers K = 1 and a fused
//! multiply-add's single rounding (and it is no tighter than correct
//! float32 kernels need). One product dropped or taken twice moves an
//! element by about a quarter, far above it. Products of inputs rounded to
//! TF32 (10 stored mantissa bits, 11 significant) are not reliably caught:
//! their rounding errors, up to 2^-11 of each input, also grow only like
//! sqrt(K) against a scale that grows like K, so at K = 4096 only the tails
//! (about 0.3% of elements) exceed the tolerance, which the sampled rows
//! and columns still hold, and from K of about 16k on a TF32 kernel would
//! pass; at small K (the unit test's 64) it fails.
//!
//! Edge shapes (1 x 1 x 1, 33 x 17 x 65, 100 x 130 x 7, 129 x 257 x 3, 255
//! x 64 x 129: none a multiple of any tile) take whole numbers in -2..2
//! and are checked at every element exactly: every partial sum is a whole
//! number far below 2^24, which float32 holds exactly, so every correct
//! kernel returns the exact product in any order.

use super::draw;
use super::reports::{FP32_FMA, Reports};
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Shape, output,
};
use crate::dims::{Dim, Dims};
use rand::Rng;

/// The tallest (widest) tile of C that the timed sample must always
/// cross: any `BAND` consecutive rows (columns) hold a sampled one.
pub const BAND: u64 = 32;

/// Rows (columns) from one sampled row (column) to the next: under
/// [`BAND`], so the samples' offset inside a band moves.
pub const STRIDE: u64 = BAND - 1;

/// The float32 unit roundoff.
const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;

/// Its dimensions.
const DIMS: &[Dim] = &[Dim::count("M"), Dim::count("N"), Dim::count("K")];

/// See the module documentation.
pub struct MatmulF32;

/// M, N and K of a run.
fn mnk(shape: &Shape) -> (u64, u64, u64) {
    (shape.dim("M"), shape.dim("N"), shape.dim("K"))
}

/// The run of M x N x K.
pub fn shape(m: u64, n: u64, k: u64) -> Shape {
    Shape::of(Dims::new(DIMS, &[m, n, k]).expect("three values of three dimensions"))
}

/// The sampled indices of `count` rows (or columns): 3, 3 + [`STRIDE`],
/// 3 + 2 [`STRIDE`], ... below `count` (the last index alone when `count`
/// is 3 or less). The first is under [`BAND`], each is at most `STRIDE`
/// past the one before, and fewer than `STRIDE` indices follow the last,
/// so any [`BAND`] consecutive indices hold a sampled one.
pub fn sampled(count: u64) -> Vec<u64> {
    let every: Vec<u64> = (3..count).step_by(STRIDE as usize).collect();
    if every.is_empty() {
        vec![count.saturating_sub(1)]
    } else {
        every
    }
}

/// The tolerance of a K-term dot product (module documentation).
pub fn tolerance(k: u64) -> f64 {
    (4.0 * (k as f64).sqrt() + 8.0) * UNIT_ROUNDOFF
}

/// A and B of M x N x K: uniform in [-1, 1) at timed sizes, whole numbers
/// in -2..2 for exact checks; each its own stream.
fn inputs(m: u64, n: u64, k: u64, seed: u64, data: Data) -> (Vec<f32>, Vec<f32>) {
    let draw = |stream: u64, len: u64| {
        let rng = draw::generator(seed, stream, m * n * k);
        match data {
            Data::Timed => draw::uniform(&rng, len, -1.0, 1.0),
            Data::Exact => {
                let mut rng = rng;
                (0..len)
                    .map(|_| rng.random_range(-2i32..=2) as f32)
                    .collect()
            }
        }
    };
    (draw(0, m * k), draw(1, k * n))
}

/// Row `i` of C and the scale of each element, in float64.
fn reference_row(a: &[f32], b: &[f32], i: u64, n: u64, k: u64) -> (Vec<f64>, Vec<f64>) {
    let (n, k, i) = (n as usize, k as usize, i as usize);
    let mut c = vec![0.0f64; n];
    let mut scale = vec![0.0f64; n];
    for p in 0..k {
        let aip = f64::from(a[i * k + p]);
        let row = &b[p * n..(p + 1) * n];
        for ((c, s), &bpj) in c.iter_mut().zip(&mut scale).zip(row) {
            *c += aip * f64::from(bpj);
            *s += (aip * f64::from(bpj)).abs();
        }
    }
    (c, scale)
}

/// Column `j` of C and the scale of each element, in float64.
fn reference_column(a: &[f32], b: &[f32], j: u64, m: u64, n: u64, k: u64) -> (Vec<f64>, Vec<f64>) {
    let (m, n, k, j) = (m as usize, n as usize, k as usize, j as usize);
    let column: Vec<f64> = (0..k).map(|p| f64::from(b[p * n + j])).collect();
    (0..m)
        .map(|i| {
            let row = &a[i * k..(i + 1) * k];
            row.iter()
                .zip(&column)
                .fold((0.0, 0.0), |(c, s), (&aip, &bpj)| {
                    let t = f64::from(aip) * bpj;
                    (c + t, s + t.abs())
                })
        })
        .unzip()
}

/// The float64 reference a check needs: at timed sizes, for each sampled
/// row its N elements and their scales, then for each sampled column its
/// M elements and their scales, as pairs (element, scale); for exact
/// checks, every element of C, row by row.
fn reference(a: &[f32], b: &[f32], (m, n, k): (u64, u64, u64), data: Data) -> Vec<f64> {
    let pairs = |(c, s): (Vec<f64>, Vec<f64>)| -> Vec<f64> {
        c.into_iter().zip(s).flat_map(|(c, s)| [c, s]).collect()
    };
    match data {
        Data::Exact => draw::map_rows(m, |i| reference_row(a, b, i as u64, n, k).0)
            .into_iter()
            .flatten()
            .collect(),
        Data::Timed => {
            let rows = sampled(m);
            let cols = sampled(n);
            let mut out =
                Vec::with_capacity(2 * (rows.len() * n as usize + cols.len() * m as usize));
            for part in draw::map_rows(rows.len() as u64, |r| {
                pairs(reference_row(a, b, rows[r], n, k))
            }) {
                out.extend(part);
            }
            for part in draw::map_rows(cols.len() as u64, |c| {
                pairs(reference_column(a, b, cols[c], m, n, k))
            }) {
                out.extend(part);
            }
            out
        }
    }
}

/// The worst element of `got` against `want` (pairs of element and
/// scale, or plain elements when exact): (error, row, column, got, want).
fn worst(
    got: &[f32],
    want: &[f64],
    (m, n, _k): (u64, u64, u64),
    data: Data,
) -> (f64, u64, u64, f64, f64) {
    let mut worst = (0.0f64, 0, 0, 0.0, 0.0);
    let mut judge = |i: u64, j: u64, r: f64, scale: Option<f64>| {
        let g = f64::from(got[(i * n + j) as usize]);
        let e = match scale {
            Some(s) => super::relative_error(g, r, s.max(f64::MIN_POSITIVE)),
            None if g == r => 0.0,
            None => super::relative_error(g, r, 1.0).max(f64::MIN_POSITIVE),
        };
        if e > worst.0 || (e.is_nan() && !worst.0.is_nan()) {
            worst = (e, i, j, g, r);
        }
    };
    match data {
        Data::Exact => {
            for i in 0..m {
                for j in 0..n {
                    judge(i, j, want[(i * n + j) as usize], None);
                }
            }
        }
        Data::Timed => {
            let mut at = 0;
            for &i in &sampled(m) {
                for j in 0..n {
                    judge(i, j, want[at], Some(want[at + 1]));
                    at += 2;
                }
            }
            for &j in &sampled(n) {
                for i in 0..m {
                    judge(i, j, want[at], Some(want[at + 1]));
                    at += 2;
                }
            }
        }
    }
    worst
}

impl Problem for MatmulF32 {
    fn name(&self) -> &'static str {
        "matmul_f32"
    }

    fn version(&self) -> u32 {
        2
    }

    fn summary(&self) -> &'static str {
        "C = A B of row-major floats, A of M x K, B of K x N, C of M x N (dims M, N, K)"
    }

    fn dims(&self) -> &'static [Dim] {
        DIMS
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let (m, n, k) = mnk(&instance.shape);
        let buffer = |name, len, role| BufferSpec {
            name,
            elem: Elem::F32,
            len,
            role,
        };
        vec![
            buffer("a", m * k, BufferRole::Input),
            buffer("b", k * n, BufferRole::Input),
            buffer("c", m * n, BufferRole::Output(OutputInit::Poison)),
        ]
    }

    fn prepare(&self, instance: &Instance, seed: u64, data: Data) -> Prepared {
        let dims = mnk(&instance.shape);
        let (a, b) = inputs(dims.0, dims.1, dims.2, seed, data);
        let reference = reference(&a, &b, dims, data);
        Prepared {
            inputs: vec![
                ("a".to_string(), HostData::F32(a)),
                ("b".to_string(), HostData::F32(b)),
            ],
            reference,
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        data: Data,
    ) -> CheckOutcome {
        let dims = mnk(&instance.shape);
        let tolerance = match data {
            Data::Timed => tolerance(dims.2),
            Data::Exact => 0.0,
        };
        let Some(got) = output(outputs, "c").and_then(HostData::as_f32) else {
            return CheckOutcome {
                error: f64::INFINITY,
                tolerance,
                pass: false,
                detail: "no float output `c`".into(),
            };
        };
        let (error, i, j, g, r) = worst(got, &prepared.reference, dims, data);
        let pass = error <= tolerance;
        let detail = if pass {
            format!("worst element C[{i}][{j}]: {g} against {r}")
        } else {
            format!(
                "C[{i}][{j}] = {g}, expected {r}{}",
                if data == Data::Exact {
                    " exactly (whole-number inputs)".to_string()
                } else {
                    format!(" (error {error:.3e} of sum |a||b|, tolerance {tolerance:.3e})")
                }
            )
        };
        CheckOutcome {
            error,
            tolerance,
            pass,
            detail,
        }
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        let (m, n, k) = mnk(&instance.shape);
        4 * (m * k + k * n + m * n)
    }

    fn work(&self, instance: &Instance) -> Vec<(&'static str, f64)> {
        let (m, n, k) = mnk(&instance.shape);
        vec![(super::reports::FLOP, 2.0 * m as f64 * n as f64 * k as f64)]
    }

    fn reports(&self) -> Reports {
        Reports::Flops(FP32_FMA)
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        [
            (1, 1, 1),
            (33, 17, 65),
            (100, 130, 7),
            (129, 257, 3),
            (255, 64, 129),
        ]
        .into_iter()
        .map(|(m, n, k)| shape(m, n, k))
        .collect()
    }

    fn check_reads_inputs(&self) -> bool {
        false
    }

    fn max_size(&self) -> (u64, &'static str) {
        // A size's number is M N K here, not an index: kernels index
        // elements of A, B and C, each far smaller.
        (
            1 << 40,
            "the float64 reference of the sampled rows and columns grows with M N K (2^40 is over a minute of the measuring machine's cores)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(m: u64, n: u64, k: u64, data: Data) -> (Instance, Prepared) {
        let instance = Instance {
            shape: shape(m, n, k),
            dtype: Elem::F32,
        };
        let prepared = MatmulF32.prepare(&instance, 11, data);
        (instance, prepared)
    }

    /// C = A B in float32, row by row, in the plain order.
    fn product(prepared: &Prepared, m: u64, n: u64, k: u64) -> Vec<f32> {
        let a = prepared.input("a").unwrap().as_f32().unwrap();
        let b = prepared.input("b").unwrap().as_f32().unwrap();
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for p in 0..k {
                for j in 0..n {
                    c[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        c
    }

    fn judge(instance: &Instance, prepared: &Prepared, c: Vec<f32>, data: Data) -> CheckOutcome {
        let c = HostData::F32(c);
        MatmulF32.check(instance, prepared, &[("c", &c)], data)
    }

    // Any 32 consecutive rows (aligned or not) hold a sampled row, at
    // every count from 1 to 5000 and at 4096; the samples' offsets inside
    // a band vary and all lie inside the matrix.
    #[test]
    fn any_32_consecutive_rows_hold_a_sampled_row() {
        for count in (1..=5000).chain([4096]) {
            let rows = sampled(count);
            assert!(rows.iter().all(|&r| r < count), "{count}");
            for start in 0..count.saturating_sub(BAND - 1) {
                assert!(
                    rows.iter().any(|&r| (start..start + BAND).contains(&r)),
                    "{count} rows: none sampled in {start}..{}",
                    start + BAND
                );
            }
            assert!(!rows.is_empty());
        }
        let rows = sampled(4096);
        assert_eq!(rows.len(), 133);
        assert!(
            rows.iter()
                .map(|r| r % BAND)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                > 8
        );
        assert_eq!(sampled(1), vec![0]);
    }

    // A wrong 32 x 32 block at rows and columns 4 to 35 (off the aligned
    // bands) fails at a timed size: before, samples at rows and columns 3
    // and 42 left it unseen.
    #[test]
    fn a_wrong_unaligned_block_fails() {
        let (m, n, k) = (128, 128, 16);
        let (instance, prepared) = run(m, n, k, Data::Timed);
        let mut c = product(&prepared, m, n, k);
        for i in 4..36 {
            for j in 4..36 {
                c[i * n as usize + j] += 1.0;
            }
        }
        let bad = judge(&instance, &prepared, c, Data::Timed);
        assert!(!bad.pass, "{}", bad.detail);
    }

    // At a timed size a float32 product passes; a 32 x 32 tile left
    // unwritten (NaN) anywhere, a tile holding its neighbour's values, or
    // products dropped from one element fails; so do TF32-rounded
    // (truncated) inputs at this small K (64; at large K they would not,
    // see the module documentation).
    #[test]
    fn timed_check_catches_a_wrong_tile() {
        let (m, n, k) = (96, 80, 64);
        let (instance, prepared) = run(m, n, k, Data::Timed);
        let good = product(&prepared, m, n, k);
        let ok = judge(&instance, &prepared, good.clone(), Data::Timed);
        assert!(ok.pass, "{}", ok.detail);
        assert!(ok.error > 0.0 && ok.error < ok.tolerance / 4.0);

        for (ti, tj) in [(0, 0), (32, 48), (64, 32)] {
            let mut nan = good.clone();
            let mut moved = good.clone();
            for i in ti..ti + 32 {
                for j in tj..tj + 32 {
                    nan[i * n as usize + j] = f32::NAN;
                    // The tile to its left (or right at the left edge).
                    let from = if tj >= 32 { j - 32 } else { j + 32 };
                    moved[i * n as usize + j] = good[i * n as usize + from];
                }
            }
            assert!(
                !judge(&instance, &prepared, nan, Data::Timed).pass,
                "NaN tile at {ti},{tj}"
            );
            assert!(
                !judge(&instance, &prepared, moved, Data::Timed).pass,
                "moved tile at {ti},{tj}"
            );
        }

        let a = prepared.input("a").unwrap().as_f32().unwrap();
        let b = prepared.input("b").unwrap().as_f32().unwrap();
        let row = sampled(m)[1] as usize;
        let mut dropped = good.clone();
        dropped[row * n as usize + 5] -= a[row * k as usize + 7] * b[7 * n as usize + 5];
        let bad = judge(&instance, &prepared, dropped, Data::Timed);
        assert!(
            !bad.pass && bad.detail.contains(&format!("C[{row}][5]")),
            "{}",
            bad.detail
        );

        let tf32 = |x: f32| f32::from_bits(x.to_bits() & 0xffff_e000);
        let mut rounded = vec![0.0f32; (m * n) as usize];
        for i in 0..m as usize {
            for p in 0..k as usize {
                for j in 0..n as usize {
                    rounded[i * n as usize + j] +=
                        tf32(a[i * k as usize + p]) * tf32(b[p * n as usize + j]);
                }
            }
        }
        assert!(!judge(&instance, &prepared, rounded, Data::Timed).pass);
    }

    // At an edge shape every element is checked exactly: the float32
    // product of whole numbers passes, one element off by one fails, and
    // a transposed index (C[j][i]) fails.
    #[test]
    fn edge_shapes_are_checked_exactly_everywhere() {
        let (m, n, k) = (33, 17, 65);
        let (instance, prepared) = run(m, n, k, Data::Exact);
        let good = product(&prepared, m, n, k);
        let ok = judge(&instance, &prepared, good.clone(), Data::Exact);
        assert!(ok.pass && ok.error == 0.0, "{}", ok.detail);
        let mut off = good.clone();
        off[(20 * n + 16) as usize] += 1.0;
        let bad = judge(&instance, &prepared, off, Data::Exact);
        assert!(
            !bad.pass && bad.detail.contains("C[20][16]"),
            "{}",
            bad.detail
        );

        let (instance, prepared) = run(17, 17, 9, Data::Exact);
        let c = product(&prepared, 17, 17, 9);
        let mut t = c.clone();
        for i in 0..17 {
            for j in 0..17 {
                t[i * 17 + j] = c[j * 17 + i];
            }
        }
        assert!(!judge(&instance, &prepared, t, Data::Exact).pass);
        assert!(!MatmulF32.check(&instance, &prepared, &[], Data::Exact).pass);
    }

    // The tolerance grows like sqrt(K); the work is 2 M N K FLOP and the
    // bytes each matrix once; no edge shape is a multiple of a warp in
    // every dimension.
    #[test]
    fn work_bytes_and_shapes() {
        assert!((tolerance(4096) / UNIT_ROUNDOFF - 264.0).abs() < 1e-9);
        let instance = Instance {
            shape: shape(4096, 2048, 1024),
            dtype: Elem::F32,
        };
        assert_eq!(
            MatmulF32.work(&instance),
            vec![("flop", 2.0 * 4096.0 * 2048.0 * 1024.0)]
        );
        assert_eq!(
            MatmulF32.bytes(&instance),
            4 * (4096 * 1024 + 1024 * 2048 + 4096 * 2048)
        );
        for s in MatmulF32.edge_shapes() {
            let (m, n, k) = mnk(&s);
            assert!(m % 32 != 0 || n % 32 != 0 || k % 32 != 0);
        }
    }
}
