//! `scan_f32`: the inclusive prefix sum of n float32 values,
//! `y[i] = x[0] + ... + x[i]`.
//!
//! Timed sizes: `x` uniform in [-1, 1). Each `y[i]` is held to the float64
//! prefix sum `ref[i]`, scaled by the prefix sum of magnitudes `s[i] =
//! |x[0]| + ... + |x[i]|`: error = max over i of `|y[i] - ref[i]| / s[i]`,
//! tolerance `4 * sqrt(n) * 2^-24`. Why that scale and that bound: a
//! prefix sum in float32 is a sum, so its rounding error is bounded by the
//! sum of magnitudes times the unit roundoff times the number of additions
//! on the longest path (n - 1 for the sequential order, fewer for a tree,
//! whichever order the kernel uses); those errors behave like random
//! signs, so they grow like the square root of that count, as for
//! `sum_f32`, and `4 * sqrt(n) * u` bounds every order a correct kernel
//! uses (a single-pass scan adds the block prefixes in a chain, one
//! addition per block before it). Scaling by `s[i]` rather than by
//! `|ref[i]|` keeps a prefix that cancels to near zero from demanding more
//! digits than float32 has.
//!
//! That tolerance cannot see one element dropped from a long prefix, so
//! the edge sizes ([`Data::Exact`]) use whole numbers from 1 to 4, whose
//! prefix sums float32 holds exactly (they stay under 2^24) in any order:
//! every `y[i]` must equal its prefix sum, and an element dropped, added
//! twice or a block prefix taken from the wrong block shows.
//!
//! One edge size is large, [`LARGE_EDGE`] = 2^24 + 3 elements (4097 tiles
//! of the book's 4096-element tile, so past the 256 tiles where a
//! decoupled look-back's window or a tile counter could wrap): a carry
//! lost there (the sum of m elements missing) is invisible to the timed
//! tolerance once m passes about a million, because uniform data of m
//! elements sums to about 1.15 sqrt(m) against `s[i]` ~ m/2, under
//! `4 sqrt(n) 2^-24`. Whole numbers 1 to 4 would sum past 2^24 there
//! (float32 would then round correct kernels), so at sizes above
//! [`SMALL_WHOLE`] the exact inputs are 0 or 1: their prefix sums, about
//! n/2, stay under 2^24 and are exact in any order, and every lost carry
//! of a block with a 1 in it shows.
//!
//! The algorithm reads `x` once and writes `y` once: `8n` bytes, compared
//! with the copy ceiling.

use super::draw::{Distribution, generator_named, threads};
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Shape, output,
};

/// See the module documentation.
pub struct ScanF32;

impl Problem for ScanF32 {
    fn name(&self) -> &'static str {
        "scan_f32"
    }

    fn version(&self) -> u32 {
        2
    }

    fn summary(&self) -> &'static str {
        "y = the inclusive prefix sum of n floats x"
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

    fn prepare(&self, instance: &Instance, seed: u64, data: Data) -> Prepared {
        let n = instance.shape.elements();
        let rng = generator_named(seed, "x", n);
        let x = match data {
            Data::Timed => Distribution::Uniform { lo: -1.0, hi: 1.0 }.draw(&rng, Elem::F32, n),
            Data::Exact if n <= SMALL_WHOLE => {
                Distribution::UniformInt { lo: 1, hi: 5 }.draw(&rng, Elem::F32, n)
            }
            Data::Exact => Distribution::UniformInt { lo: 0, hi: 2 }.draw(&rng, Elem::F32, n),
        };
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
        data: Data,
    ) -> CheckOutcome {
        let (Some(x), Some(y)) = (
            prepared.input("x").and_then(HostData::as_f32),
            output(outputs, "y").and_then(HostData::as_f32),
        ) else {
            return super::rowwise::missing();
        };
        check_scan(x, y, data)
    }

    fn device_check(&self) -> Option<super::DeviceCheck> {
        Some(super::DeviceCheck::PrefixSumF32 {
            input: "x",
            output: "y",
        })
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        8 * instance.shape.elements()
    }

    fn bound(&self) -> super::Bound {
        super::Bound::Copy
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        // One element, a warp and one, a block of 1024 and a block of 4096
        // and one (a ragged last block), many blocks, and more than 4096
        // tiles (see LARGE_EDGE).
        [1, 33, 1025, 4097, 65_537, 1_000_003, LARGE_EDGE]
            .into_iter()
            .map(Shape::flat)
            .collect()
    }
}

/// The large edge size: 2^24 + 3 elements, more than 256 (and 4096) tiles
/// of 4096, so a look-back wrong only past tile 255 fails the exact check.
const LARGE_EDGE: u64 = (1 << 24) + 3;

/// The largest size whose exact inputs are whole numbers 1 to 4 (prefix
/// sums at most 4n, under 2^24); above it they are 0 or 1.
const SMALL_WHOLE: u64 = 1 << 22;

/// Elements per chunk of the check, fixed so that the reference does not
/// depend on the number of threads (nor, on the GPU, on the grid).
pub const CHECK_CHUNK: usize = 1 << 16;
const CHUNK: usize = CHECK_CHUNK;

/// The worst element of an answer: its error (0 for an exact match,
/// infinite for a wrong exact answer or a NaN), its index
/// (`usize::MAX` when no element had an error above 0) and its float64
/// reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Worst {
    /// The error, as [`super::relative_error`] or exact.
    pub error: f64,
    /// The element's index; `usize::MAX` for none.
    pub index: usize,
    /// The float64 prefix sum the element was held to.
    pub reference: f64,
}

impl Worst {
    /// No element in error.
    pub const NONE: Worst = Worst {
        error: 0.0,
        index: usize::MAX,
        reference: 0.0,
    };

    /// The worse of two, the first on a tie (the host check's order: the
    /// lowest index of the largest error).
    pub fn worse(self, other: Worst) -> Worst {
        if other.error > self.error
            || (other.error == self.error && other.index < self.index && other.error > 0.0)
        {
            other
        } else {
            self
        }
    }
}

/// The worst element of `y` against the float64 prefix sums of `x`,
/// exactly or within the tolerance as `data` says; on every core (each
/// chunk starts from the float64 sums of the chunks before it).
fn check_scan(x: &[f32], y: &[f32], data: Data) -> CheckOutcome {
    let n = x.len();
    // Each chunk's float64 total, on every core (the same fold of the same
    // elements as one thread would do, so the same totals).
    let totals: Vec<(f64, f64)> = super::draw::map_rows(n.div_ceil(CHUNK) as u64, |k| {
        x[k * CHUNK..((k + 1) * CHUNK).min(n)]
            .iter()
            .fold((0.0, 0.0), |(s, m), &v| {
                (s + f64::from(v), m + f64::from(v).abs())
            })
    });
    let mut starts = Vec::with_capacity(totals.len());
    let mut at = (0.0, 0.0);
    for t in &totals {
        starts.push(at);
        at = (at.0 + t.0, at.1 + t.1);
    }
    // (error, index, reference) of the worst element of each chunk.
    let chunks: Vec<usize> = (0..totals.len()).collect();
    let per_thread = chunks.len().div_ceil(threads()).max(1);
    let worst = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .chunks(per_thread)
            .map(|group| {
                let starts = &starts;
                scope.spawn(move || {
                    let mut worst = Worst::NONE;
                    for &k in group {
                        let (mut s, mut m) = starts[k];
                        for i in k * CHUNK..((k + 1) * CHUNK).min(n) {
                            s += f64::from(x[i]);
                            m += f64::from(x[i]).abs();
                            let got = f64::from(y[i]);
                            let e = match data {
                                Data::Exact if got == s => 0.0,
                                Data::Exact => f64::INFINITY,
                                Data::Timed => {
                                    super::relative_error(got, s, m.max(f64::MIN_POSITIVE))
                                }
                            };
                            if e > worst.error {
                                worst = Worst {
                                    error: e,
                                    index: i,
                                    reference: s,
                                };
                            }
                        }
                    }
                    worst
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a checking thread panicked"))
            .fold(Worst::NONE, Worst::worse)
    });
    outcome(
        n,
        data,
        worst,
        (worst.index != usize::MAX).then(|| y[worst.index]),
    )
}

/// The verdict on a scan of `n` elements whose worst element is `worst`
/// (with `got`, the answer's value there): the tolerance, the pass and the
/// wording shared by the host check and the GPU's ([`super::DeviceCheck`]).
pub fn outcome(n: usize, data: Data, worst: Worst, got: Option<f32>) -> CheckOutcome {
    let tolerance = match data {
        Data::Exact => 0.0,
        Data::Timed => 4.0 * (n.max(1) as f64).sqrt() * Elem::F32.unit_roundoff(),
    };
    let Worst {
        error,
        index: i,
        reference,
    } = worst;
    let pass = error <= tolerance;
    let got = got.unwrap_or(f32::NAN);
    let detail = if i == usize::MAX {
        format!("all {n} prefix sums right")
    } else if data == Data::Exact && !pass {
        format!(
            "y[{i}]: expected exactly {reference}, got {got} (the inputs are whole numbers from 1 to 4, or 0 and 1 above {SMALL_WHOLE} elements, whose prefix sums float32 holds exactly, so elements were dropped, added twice or a block's prefix came from the wrong block)"
        )
    } else {
        format!("worst y[{i}]: expected {reference:.6}, got {got}")
    };
    CheckOutcome {
        error,
        tolerance,
        pass,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(x: &[f32]) -> Vec<f32> {
        let mut s = 0.0f32;
        x.iter()
            .map(|&v| {
                s += v;
                s
            })
            .collect()
    }

    fn judge(n: u64, data: Data, wrong: impl Fn(&mut Vec<f32>, &[f32])) -> CheckOutcome {
        let p = ScanF32;
        let i = Instance {
            shape: Shape::flat(n),
            dtype: Elem::F32,
        };
        let prepared = p.prepare(&i, 11, data);
        let x = prepared.input("x").unwrap().as_f32().unwrap().to_vec();
        let mut y = scanned(&x);
        wrong(&mut y, &x);
        p.check(&i, &prepared, &[("y", &HostData::F32(y))], data)
    }

    // The worst of the chunks' worst elements is the lowest index of the
    // largest error whatever order the GPU's chunks come back in, as the
    // host check reports it.
    #[test]
    fn the_worst_element_does_not_depend_on_the_order_of_chunks() {
        let w = |error, index| Worst {
            error,
            index,
            reference: index as f64,
        };
        let parts = [
            w(0.0, usize::MAX),
            w(2.0, 70),
            w(1.0, 3),
            w(2.0, 9),
            w(0.5, 1),
        ];
        let forward = parts.iter().copied().fold(Worst::NONE, Worst::worse);
        let backward = parts.iter().rev().copied().fold(Worst::NONE, Worst::worse);
        assert_eq!(forward, w(2.0, 9));
        assert_eq!(backward, w(2.0, 9));
        assert_eq!(
            [Worst::NONE; 3].into_iter().fold(Worst::NONE, Worst::worse),
            Worst::NONE
        );
    }

    // The verdict made from a worst element is the host check's: a scan
    // with one element off at 2^20 fails at that element with the same
    // error, tolerance and wording whichever side found the worst.
    #[test]
    fn the_verdict_from_a_worst_element_is_the_host_checks() {
        let n = 1u64 << 20;
        let host = judge(n, Data::Timed, |y, _| y[777_777] += 1000.0);
        assert!(!host.pass);
        let reference: f64 = {
            let p = ScanF32.prepare(
                &Instance {
                    shape: Shape::flat(n),
                    dtype: Elem::F32,
                },
                11,
                Data::Timed,
            );
            let x = p.input("x").unwrap().as_f32().unwrap();
            x[..=777_777].iter().map(|&v| f64::from(v)).sum()
        };
        let got: f32 = host.detail.rsplit("got ").next().unwrap().parse().unwrap();
        let worst = Worst {
            error: host.error,
            index: 777_777,
            reference,
        };
        let rebuilt = outcome(n as usize, Data::Timed, worst, Some(got));
        assert_eq!(rebuilt.pass, host.pass);
        assert_eq!(rebuilt.tolerance, host.tolerance);
        assert!(
            host.detail.starts_with("worst y[777777]: expected "),
            "{}",
            host.detail
        );
        assert!(
            rebuilt.detail.starts_with("worst y[777777]: expected "),
            "{}",
            rebuilt.detail
        );
    }

    // A sequential float32 scan passes, exactly on whole numbers at every
    // edge size and within the tolerance on uniform data at 2^22.
    #[test]
    fn a_sequential_scan_passes() {
        for shape in ScanF32.edge_shapes() {
            let out = judge(shape.cols, Data::Exact, |_, _| {});
            assert!(out.pass, "{}: {}", shape.cols, out.detail);
        }
        let out = judge(1 << 22, Data::Timed, |_, _| {});
        assert!(out.pass, "{}", out.detail);
    }

    // Exclusive instead of inclusive, one element dropped from the last
    // block's prefix, and an unwritten element fail.
    #[test]
    fn the_check_catches_exclusive_dropped_and_unwritten() {
        let exclusive = judge(4097, Data::Exact, |y, x| {
            for (i, v) in y.iter_mut().enumerate() {
                *v -= x[i];
            }
        });
        assert!(
            !exclusive.pass && exclusive.detail.starts_with("y[0]"),
            "{}",
            exclusive.detail
        );
        let dropped = judge(4097, Data::Exact, |y, x| {
            y[4096] -= x[0];
        });
        assert!(
            !dropped.pass && dropped.detail.starts_with("y[4096]"),
            "{}",
            dropped.detail
        );
        let hole = judge(1 << 20, Data::Timed, |y, _| y[12345] = f32::NAN);
        assert!(!hole.pass && hole.error.is_infinite(), "{}", hole.detail);
        // The carry into the second half missing at a timed size (a scan
        // that restarts there): the first half's sum, hundreds of times
        // the rounding, is missing from every later element.
        let block = judge(1 << 20, Data::Timed, |y, _| {
            let carry = y[(1 << 19) - 1];
            y[1 << 19..].iter_mut().for_each(|v| *v -= carry);
        });
        assert!(!block.pass, "{}", block.detail);
    }

    // A scan whose look-back goes wrong only past tile 255 (every tile
    // from 256 on loses the carry of the tiles before it) fails at the
    // largest edge size: before LARGE_EDGE the largest was 1_000_003
    // elements, 245 tiles, and this scan passed.
    #[test]
    fn the_check_catches_a_carry_lost_past_tile_255() {
        let largest = ScanF32.edge_shapes().iter().map(|s| s.cols).max().unwrap();
        let out = judge(largest, Data::Exact, |y, _| {
            let tile = 4096;
            let from = 256 * tile;
            let n = y.len();
            for k in (from..n).step_by(tile).rev() {
                let carry = y[k - 1];
                y[k..(k + tile).min(n)].iter_mut().for_each(|v| *v -= carry);
            }
        });
        assert!(!out.pass, "{}", out.detail);
        // And a correct scan passes there (its sums stay exact).
        let right = judge(largest, Data::Exact, |_, _| {});
        assert!(right.pass, "{}", right.detail);
    }
}
