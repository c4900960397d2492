//! `fma_f32`: a chain of float32 fused multiply-adds per element, the
//! compute-bound problem that measures the FP32 FMA rate.
//!
//! Each output element is the input element after [`STEPS`] steps of
//! `v = fmaf(v, a, b)`, with the scalars `a` = -1 and `b` = 0.5 passed at
//! run time (so the compiler cannot fold the chain) and `steps` passed as
//! an `unsigned int`. With `a` = -1 a step maps `v` to `b - v`, so an odd
//! number of steps gives `b - x`: the float64 reference is that, with no
//! chain to replay on the host, and the values stay in [-0.5, 1.5] for the
//! whole chain (no overflow, no denormal, which could slow the arithmetic
//! down). Only the first one or two steps round (`0.5 - v` is exact once
//! `v` lies on the grid of 2^-25 near 0.5), so every element lies within a
//! few units of 2^-24 of the reference, and the check holds each to
//! 2^-20: a kernel that skips a step (an even count, giving `x`) or writes
//! the wrong element fails at every element.
//!
//! The work is `2 * steps * N` FLOP (an FMA is two), the figures TFLOP/s
//! and its percentage of the FP32 FMA ceiling the runner measures in the
//! same session ([`super::reports::FP32_FMA`]). The bytes (`8 N`: x read,
//! y written) are a small share of the time at [`STEPS`] steps.

use super::draw::{Distribution, generator_named};
use super::reports::{FLOP, FP32_FMA, Reports};
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Scalar, Shape, output, relative_error,
};

/// The FMA steps per element: odd, so the answer is `b - x`, and long
/// enough that reading and writing the element is a small share of the
/// time (the arithmetic is 2 x 1025 FLOP per 8 bytes).
pub const STEPS: u32 = 1025;

/// The multiplier of every step.
const A: f32 = -1.0;

/// The addend of every step.
const B: f32 = 0.5;

/// The largest relative error allowed (against max(|ref|, 1)).
const TOLERANCE: f64 = 1.0 / (1u64 << 20) as f64;

/// See the module documentation.
pub struct FmaF32;

impl Problem for FmaF32 {
    fn name(&self) -> &'static str {
        "fma_f32"
    }

    fn version(&self) -> u32 {
        1
    }

    fn summary(&self) -> &'static str {
        "y = x after `steps` steps of v = fmaf(v, a, b), a = -1, b = 0.5: the FP32 FMA rate"
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let n = instance.shape.elements();
        vec![
            BufferSpec {
                name: "x",
                elem: Elem::F32,
                len: n,
                role: BufferRole::Input,
            },
            BufferSpec {
                name: "y",
                elem: Elem::F32,
                len: n,
                role: BufferRole::Output(OutputInit::Poison),
            },
        ]
    }

    fn scalars(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("a", Scalar::F32(A)),
            ("b", Scalar::F32(B)),
            ("steps", Scalar::U32(STEPS)),
        ]
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let n = instance.shape.elements();
        let x = Distribution::Uniform { lo: -1.0, hi: 1.0 }.draw(
            &generator_named(seed, "x", n),
            Elem::F32,
            n,
        );
        Prepared {
            inputs: vec![("x".to_string(), x)],
            reference: Vec::new(),
        }
    }

    fn check(
        &self,
        _instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let (Some(x), Some(y)) = (
            prepared.input("x").and_then(HostData::as_f32),
            output(outputs, "y").and_then(HostData::as_f32),
        ) else {
            return super::rowwise::missing();
        };
        check_chain(x, y)
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        8 * instance.shape.elements()
    }

    fn work(&self, instance: &Instance) -> Vec<(&'static str, f64)> {
        let n = instance.shape.elements() as f64;
        vec![("elements", n), (FLOP, 2.0 * f64::from(STEPS) * n)]
    }

    fn reports(&self) -> Reports {
        Reports::Flops(FP32_FMA)
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        // One element, and two counts that are no multiple of a warp, of
        // 4 or of 8 elements per thread: a kernel's ragged tail.
        [1, 1000, 1_000_003].into_iter().map(Shape::flat).collect()
    }
}

/// The reference of one element: `b - x` (an odd number of steps).
fn reference(x: f32) -> f64 {
    f64::from(B) - f64::from(x)
}

/// Every element of `y` against `b - x`, within [`TOLERANCE`] of
/// max(|ref|, 1); the detail names the worst element.
fn check_chain(x: &[f32], y: &[f32]) -> CheckOutcome {
    let mut worst = (0.0f64, 0usize);
    let mut wrong = 0u64;
    for (i, (&xi, &yi)) in x.iter().zip(y).enumerate() {
        let r = reference(xi);
        // Never NaN: relative_error makes a non-finite answer infinite.
        let e = relative_error(f64::from(yi), r, r.abs().max(1.0));
        if e > TOLERANCE {
            wrong += 1;
        }
        if e > worst.0 {
            worst = (e, i);
        }
    }
    let (error, i) = worst;
    let detail = if wrong == 0 {
        format!(
            "all {} elements within {TOLERANCE:e} of b - x after {STEPS} steps",
            y.len()
        )
    } else {
        format!(
            "{wrong} of {} elements wrong; worst y[{i}]: expected {} (b - x after {STEPS} steps of fmaf(v, -1, 0.5)), got {}",
            y.len(),
            reference(x[i]),
            y[i]
        )
    };
    CheckOutcome {
        error,
        tolerance: TOLERANCE,
        pass: wrong == 0 && y.len() == x.len(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(n: u64) -> Instance {
        Instance {
            shape: Shape::flat(n),
            dtype: Elem::F32,
        }
    }

    /// The chain as a correct kernel computes it, in float32 with fused
    /// multiply-adds.
    fn chain(x: &[f32], steps: u32) -> Vec<f32> {
        x.iter()
            .map(|&v| (0..steps).fold(v, |v, _| v.mul_add(A, B)))
            .collect()
    }

    // The float32 chain a kernel computes passes at every edge size; one
    // step too few (the input back), one element unwritten (NaN) and
    // every element shifted by one fail.
    #[test]
    fn the_chain_passes_and_its_mistakes_fail() {
        let p = FmaF32;
        // The chain is replayed on the host for the small shapes (a
        // million elements of 1025 steps is minutes in a debug build).
        for shape in [Shape::flat(1), Shape::flat(1000), Shape::flat(4099)] {
            let i = Instance {
                shape,
                dtype: Elem::F32,
            };
            let prepared = p.prepare(&i, 11, Data::Exact);
            let x = prepared.input("x").unwrap().as_f32().unwrap().to_vec();
            let right = HostData::F32(chain(&x, STEPS));
            let ok = p.check(&i, &prepared, &[("y", &right)], Data::Exact);
            assert!(ok.pass, "{}", ok.detail);
            let short = HostData::F32(chain(&x, STEPS - 1));
            assert!(!p.check(&i, &prepared, &[("y", &short)], Data::Exact).pass);
            let mut hole = chain(&x, STEPS);
            *hole.last_mut().unwrap() = f32::NAN;
            let out = p.check(&i, &prepared, &[("y", &HostData::F32(hole))], Data::Exact);
            assert!(
                !out.pass && out.detail.contains("got NaN"),
                "{}",
                out.detail
            );
            if x.len() > 1 {
                let mut shifted = chain(&x, STEPS);
                shifted.rotate_left(1);
                let out = p.check(
                    &i,
                    &prepared,
                    &[("y", &HostData::F32(shifted))],
                    Data::Exact,
                );
                assert!(!out.pass, "a shifted answer passed");
            }
        }
    }

    // The work is two FLOP per step per element; the bytes a read and a
    // write of each; the figure is TFLOP/s against the FMA ceiling.
    #[test]
    fn work_bytes_and_ceiling() {
        let i = instance(1 << 22);
        assert_eq!(FmaF32.bytes(&i), 8 << 22);
        assert_eq!(
            FmaF32.work(&i),
            vec![
                ("elements", (1u64 << 22) as f64),
                ("flop", 2.0 * 1025.0 * (1u64 << 22) as f64)
            ]
        );
        assert_eq!(FmaF32.reports(), Reports::Flops(FP32_FMA));
        assert_eq!(STEPS % 2, 1, "an odd count makes the answer b - x");
    }
}
