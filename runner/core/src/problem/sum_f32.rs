//! `sum_f32`: the sum of N float32 values into one float.
//!
//! Inputs are uniform in [0, 1), drawn from a seeded PCG generator (so no
//! input is all zeros and every run sees the same data for a size). The
//! output `out` is an accumulator: it starts at 0 before each run, so
//! kernels may add into it with atomics or overwrite it from a second pass.
//!
//! The check: error = |out - ref| / sum(|x_i|) with `ref` the float64 sum.
//! Tolerance = 4 * sqrt(N) * u, u = 2^-24 the float32 unit roundoff. The
//! deterministic bound for any summation order is (N - 1) * u, far too loose
//! to catch anything; rounding errors behave like random signs, so their sum
//! grows like sqrt(N) (Higham and Mary, "A new approach to probabilistic
//! rounding error analysis", 2019), and a factor of 4 leaves room for the
//! worst order a correct kernel uses. Tree reductions land orders of
//! magnitude below it; a float32 accumulator that saturates at 2^24 fails it.
//!
//! The tolerance cannot see a small slice of the input go missing: at 2^28
//! uniform values, dropping the last 2^19 moves the sum by 2^-9 of itself,
//! under 4 sqrt(N) u. So the edge sizes ([`Data::Exact`]) use whole numbers
//! from 1 to 4 instead: every partial sum is a whole number under 2^24,
//! which float32 holds exactly, so every correct kernel returns the exact
//! sum in any order, and the check is equality. One element dropped, read
//! twice or read from the wrong place changes it.
//!
//! Sizes go up to 2^31: kernels take `n` as an unsigned int, and the book's
//! vectorised kernels compute element indices such as `4 * (n / 4) + i` in
//! 32 bits, which stay below 2^32 only while n is at most 2^31.

use super::draw::{self, threads};
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Shape, output,
};
use rand::Rng;

/// The float32 unit roundoff.
const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;

/// See the module documentation.
pub struct SumF32;

impl Problem for SumF32 {
    fn name(&self) -> &'static str {
        "sum_f32"
    }

    fn version(&self) -> u32 {
        // v2: exact checks at the edge sizes on whole-number inputs.
        2
    }

    fn summary(&self) -> &'static str {
        "the sum of n floats into `out`, an accumulator that starts at 0"
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        vec![
            BufferSpec {
                name: "input",
                elem: Elem::F32,
                len: instance.shape.elements(),
                role: BufferRole::Input,
            },
            BufferSpec {
                name: "out",
                elem: Elem::F32,
                len: 1,
                role: BufferRole::Output(OutputInit::Identity(0.0)),
            },
        ]
    }

    fn prepare(&self, instance: &Instance, seed: u64, data: Data) -> Prepared {
        let x = input(instance.shape.elements(), seed, data);
        let (sum, magnitude) = reference_sum(&x);
        Prepared {
            inputs: vec![("input".to_string(), HostData::F32(x))],
            reference: vec![sum, magnitude],
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        data: Data,
    ) -> CheckOutcome {
        let n = instance.shape.elements();
        let got = output(outputs, "out")
            .and_then(|v| v.as_f32())
            .and_then(|v| v.first().copied())
            .unwrap_or(f32::NAN);
        let (reference, magnitude) = (prepared.reference[0], prepared.reference[1]);
        if data == Data::Exact {
            return exact_check(reference, got, exact_top(n));
        }
        let tolerance = tolerance(n);
        let error = if magnitude > 0.0 {
            (f64::from(got) - reference).abs() / magnitude
        } else {
            (f64::from(got) - reference).abs()
        };
        // `error <= tolerance` is false for NaN, so NaN never passes.
        let pass = error <= tolerance;
        CheckOutcome {
            error: if error.is_nan() { f64::INFINITY } else { error },
            tolerance,
            pass,
            detail: format!("expected {reference:.6}, got {got}"),
        }
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        4 * instance.shape.elements() + 4
    }

    // The check reads the sum and the sum of magnitudes, never the input.
    fn check_reads_inputs(&self) -> bool {
        false
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        [1, 1000, 1_000_003].into_iter().map(Shape::flat).collect()
    }

    fn max_size(&self) -> (u64, &'static str) {
        (
            1 << 31,
            "kernels take n as an unsigned int and the book's kernels compute indices such as 4 * (n / 4) + i in 32 bits",
        )
    }
}

/// The input at size `n`: uniform in [0, 1), or whole numbers from 1 to 4
/// for [`Data::Exact`].
fn input(n: u64, seed: u64, data: Data) -> Vec<f32> {
    let rng = draw::generator(seed, 0, n);
    if data == Data::Exact {
        let top = exact_top(n);
        let mut rng = rng;
        return (0..n).map(|_| rng.random_range(1..=top) as f32).collect();
    }
    draw::uniform(&rng, n, 0.0, 1.0)
}

/// Largest whole number of [`Data::Exact`] inputs at size `n`: 4, or less
/// where 4 n would pass 2^24 (the sum must stay exact in float32).
fn exact_top(n: u64) -> u32 {
    debug_assert!(
        n <= 1 << 24,
        "no whole-number inputs of {n} elements sum exactly"
    );
    ((1u64 << 24) / n.max(1)).clamp(1, 4) as u32
}

/// Equality with the exact sum of whole numbers from 1 to `top`.
fn exact_check(reference: f64, got: f32, top: u32) -> CheckOutcome {
    let got = f64::from(got);
    let pass = got == reference;
    let error = if got.is_finite() {
        (got - reference).abs() / reference.max(1.0)
    } else {
        f64::INFINITY
    };
    let off = if pass || !got.is_finite() {
        String::new()
    } else if got < reference {
        format!(" ({} short", reference - got)
    } else {
        format!(" ({} over", got - reference)
    };
    let why = if off.is_empty() {
        String::new()
    } else {
        format!(
            "{off}: the inputs are whole numbers from 1 to {top}, which float32 adds exactly in any order, so elements were dropped, read twice or read from the wrong place)"
        )
    };
    CheckOutcome {
        error,
        tolerance: 0.0,
        pass,
        detail: format!("expected exactly {reference}, got {got}{why}"),
    }
}

/// Elements per partial sum of [`reference_sum`]; fixed, so the reference
/// does not depend on the number of threads.
const REFERENCE_CHUNK: usize = 1 << 20;

/// The float64 sum and the sum of magnitudes: float64 partial sums over
/// fixed chunks of the input (computed in parallel), added in order.
pub fn reference_sum(x: &[f32]) -> (f64, f64) {
    let chunks: Vec<&[f32]> = x.chunks(REFERENCE_CHUNK).collect();
    let per_thread = chunks.len().div_ceil(threads()).max(1);
    let partials: Vec<(f64, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .chunks(per_thread)
            .map(|group| {
                scope.spawn(move || group.iter().map(|c| chunk_sum(c)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a summing thread panicked"))
            .collect()
    });
    partials
        .iter()
        .fold((0.0, 0.0), |(s, m), (ps, pm)| (s + ps, m + pm))
}

fn chunk_sum(x: &[f32]) -> (f64, f64) {
    x.iter().fold((0.0, 0.0), |(s, m), &v| {
        let v = f64::from(v);
        (s + v, m + v.abs())
    })
}

/// The tolerance at size `n`: 4 * sqrt(n) * u.
pub fn tolerance(n: u64) -> f64 {
    4.0 * (n.max(1) as f64).sqrt() * UNIT_ROUNDOFF
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_check(n: u64, x: &[f32], got: f32, data: Data) -> CheckOutcome {
        let (sum, magnitude) = reference_sum(x);
        let prepared = Prepared {
            inputs: Vec::new(),
            reference: vec![sum, magnitude],
        };
        let instance = Instance {
            shape: Shape::flat(n),
            dtype: Elem::F32,
        };
        let out = HostData::F32(vec![got]);
        SumF32.check(&instance, &prepared, &[("out", &out)], data)
    }

    fn check_value(n: u64, x: &[f32], got: f32) -> CheckOutcome {
        run_check(n, x, got, Data::Timed)
    }

    fn check_exact(n: u64, x: &[f32], got: f32) -> CheckOutcome {
        run_check(n, x, got, Data::Exact)
    }

    fn exact_input(n: u64, seed: u64) -> Vec<f32> {
        super::input(n, seed, Data::Exact)
    }

    fn input(n: u64, seed: u64) -> Vec<f32> {
        super::input(n, seed, Data::Timed)
    }

    // Inputs are reproducible per seed and never all zeros.
    #[test]
    fn inputs_are_seeded_and_nonzero() {
        let a = input(4096, 7);
        assert_eq!(a, input(4096, 7));
        assert_ne!(a, input(4096, 8));
        assert!(a.iter().all(|v| (0.0..1.0).contains(v)));
        assert!(a.iter().filter(|v| **v == 0.0).count() < 2);
    }

    // The parallel generator yields exactly the sequential stream.
    #[test]
    fn parallel_input_is_the_sequential_stream() {
        let n = 1_000_003u64;
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5 ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let sequential: Vec<f32> = (0..n).map(|_| rng.random::<f32>()).collect();
        assert_eq!(input(n, 5), sequential);
    }

    // The chunked reference equals a plain float64 sum to rounding.
    #[test]
    fn chunked_reference_matches_a_plain_sum() {
        let x = input(3 * REFERENCE_CHUNK as u64 + 17, 3);
        let (s, m) = reference_sum(&x);
        let plain: f64 = x.iter().map(|&v| f64::from(v)).sum();
        assert!((s - plain).abs() <= 1e-12 * plain);
        assert_eq!(s, m);
    }

    // A float32 sum in the natural order passes; NaN never does.
    #[test]
    fn sequential_float_sum_passes_and_nan_fails() {
        let n = 1 << 16;
        let x = input(n, 1);
        let s: f32 = x.iter().sum();
        assert!(check_value(n, &x, s).pass);
        assert!(!check_value(n, &x, f32::NAN).pass);
    }

    // The check holds the documented bound, 4 sqrt(n) u of the sum of
    // magnitudes: an answer off by half of it passes and one off by twice
    // it fails, at a size where that is a few units of the sum.
    #[test]
    fn the_tolerance_is_four_sqrt_n_unit_roundoffs() {
        let n: u64 = 1 << 16;
        let x = input(n, 6);
        let (sum, magnitude) = reference_sum(&x);
        let bound = 4.0 * 256.0 / 16_777_216.0;
        let off_by = |k: f64| (sum + k * bound * magnitude) as f32;
        let near = check_value(n, &x, off_by(0.5));
        assert!(near.pass, "{}", near.detail);
        assert_eq!(near.tolerance, bound);
        let far = check_value(n, &x, off_by(2.0));
        assert!(!far.pass, "{}", far.detail);
        assert!((far.error / bound - 2.0).abs() < 0.01, "{}", far.error);
    }

    // A float32 accumulator stuck at 2^24 (one atomic per element over 2^26
    // values) is far outside the tolerance.
    #[test]
    fn saturated_float_accumulator_fails() {
        let n: u64 = 1 << 26;
        let tol = tolerance(n);
        let error = (16_777_216.0f64 - 33_520_880.0).abs() / 33_520_880.0;
        assert!(error > 100.0 * tol);
    }

    // Edge-size inputs are whole numbers from 1 to 4, and a float32 sum of
    // them in any order is exact.
    #[test]
    fn exact_inputs_sum_exactly_in_any_order() {
        let n = 1_000_003;
        let x = exact_input(n, 9);
        assert!(x.iter().all(|v| [1.0, 2.0, 3.0, 4.0].contains(v)));
        let forward: f32 = x.iter().sum();
        let pairwise: f32 = x.chunks(4).map(|c| c.iter().sum::<f32>()).sum();
        assert!(check_exact(n, &x, forward).pass);
        assert!(check_exact(n, &x, pairwise).pass);
        assert_eq!(check_exact(n, &x, forward).tolerance, 0.0);
    }

    // A kernel that skips the float4 tail (the last 3 of 1,000,003) passed
    // the tolerance on uniform inputs; the exact check fails it and says why.
    #[test]
    fn a_skipped_tail_fails_the_exact_check() {
        let n = 1_000_003u64;
        let uniform = input(n, 9);
        let no_tail: f32 = uniform[..1_000_000].iter().sum();
        assert!(
            check_value(n, &uniform, no_tail).pass,
            "the tolerance cannot see it"
        );
        let x = exact_input(n, 9);
        let no_tail: f32 = x[..1_000_000].iter().sum();
        let c = check_exact(n, &x, no_tail);
        assert!(!c.pass);
        assert!(
            c.detail
                .contains(" short: the inputs are whole numbers from 1 to 4"),
            "{}",
            c.detail
        );
        assert_eq!(
            check_exact(n, &x, f32::NAN).detail.split(", ").last(),
            Some("got NaN")
        );
    }

    // A missing slice under the tolerance passes: at 2^22 the tolerance is
    // 2^-11 of the sum, so dropping the last 2^10 elements (2^-12) passes,
    // as dropping 2^19 of 2^28 does at 2^28. Why the edge sizes are checked
    // exactly.
    #[test]
    fn the_tolerance_cannot_see_a_missing_slice() {
        let n: u64 = 1 << 22;
        let x = input(n, 4);
        let kept = (n - (n >> 12)) as usize;
        let short: f32 = x[..kept].iter().sum();
        assert!(check_value(n, &x, short).pass);
    }

    // An infinite result is reported like NaN, without a count of elements.
    #[test]
    fn an_infinite_result_is_not_a_count() {
        let x = exact_input(1000, 2);
        let c = check_exact(1000, &x, f32::INFINITY);
        assert!(!c.pass && c.error == f64::INFINITY);
        assert!(c.detail.ends_with("got inf"), "{}", c.detail);
    }

    // Losing a tenth of the input at a small size is caught.
    #[test]
    fn dropped_elements_fail_at_edge_sizes() {
        let n = 1000;
        let x = input(n, 3);
        let partial: f32 = x[..900].iter().sum();
        assert!(!check_value(n, &x, partial).pass);
    }

    // An input whose magnitudes sum to zero (all zeros: never drawn, but a
    // problem's inputs may change) is judged on the absolute error: the
    // right answer, 0, passes and a wrong one fails, instead of 0 / 0.
    #[test]
    fn a_zero_input_is_judged_on_the_absolute_error() {
        let x = vec![0.0f32; 1000];
        let right = check_value(1000, &x, 0.0);
        assert!(right.pass && right.error == 0.0, "{right:?}");
        let wrong = check_value(1000, &x, 0.5);
        assert!(!wrong.pass && wrong.error == 0.5, "{wrong:?}");
    }

    // The exact check passes on equality alone, but reports how far off a
    // wrong sum is, relative to the exact one, so that a record can say
    // "a few elements" from "half the input".
    #[test]
    fn the_exact_check_reports_the_relative_shortfall() {
        let x = exact_input(1000, 2);
        let exact: f32 = x.iter().sum();
        let c = check_exact(1000, &x, exact - 3.0);
        assert!(!c.pass);
        assert_eq!(c.error, 3.0 / f64::from(exact));
        assert_eq!(check_exact(1000, &x, exact).error, 0.0);
    }
}
