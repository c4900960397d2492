//! `histogram_u8` and `histogram_u8_skewed`: the histogram of n bytes into
//! 256 unsigned 32-bit bins.
//!
//! The input `x` is n bytes: uniform over 0..256 (`histogram_u8`), or with
//! seven eighths of them 0, the rest uniform (`histogram_u8_skewed`, the
//! case where every thread's atomic lands on the same bin: a mostly dark
//! image). `bins` is an accumulator: it is set to 0 before every run,
//! outside the timed region, so kernels add into it with atomics.
//!
//! Counting is exact, so the check is equality of every bin with the
//! count, at the timed sizes and at the edge sizes; the detail names the
//! first bin wrong and whether counts were lost (a race) or added twice.
//!
//! The algorithm reads every byte once and writes the 256 bins: `n + 1024`
//! bytes, compared with the read ceiling.

use super::draw::{Distribution, generator_named};
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Shape, output,
};

/// Bins of the histogram.
pub const BINS: usize = 256;

/// The value most bytes of the skewed input take.
pub const SKEWED_VALUE: u64 = 0;

/// The share of bytes of the skewed input that take [`SKEWED_VALUE`].
pub const SKEWED_SHARE: f64 = 0.875;

/// See the module documentation; `skewed` chooses the input.
pub struct HistogramU8 {
    /// Seven eighths of the bytes one value, instead of uniform.
    pub skewed: bool,
}

impl HistogramU8 {
    /// The distribution of its bytes.
    pub fn distribution(&self) -> Distribution {
        if self.skewed {
            Distribution::Skewed {
                share: SKEWED_SHARE,
                value: SKEWED_VALUE,
                lo: 0,
                hi: BINS as u64,
            }
        } else {
            Distribution::UniformInt {
                lo: 0,
                hi: BINS as u64,
            }
        }
    }
}

impl Problem for HistogramU8 {
    fn name(&self) -> &'static str {
        if self.skewed {
            "histogram_u8_skewed"
        } else {
            "histogram_u8"
        }
    }

    fn version(&self) -> u32 {
        1
    }

    fn summary(&self) -> &'static str {
        if self.skewed {
            "the histogram of n bytes (seven eighths of them 0) into 256 unsigned int bins that start at 0"
        } else {
            "the histogram of n bytes (uniform) into 256 unsigned int bins that start at 0"
        }
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        vec![
            BufferSpec {
                name: "x",
                elem: Elem::U8,
                len: instance.shape.elements(),
                role: BufferRole::Input,
            },
            BufferSpec {
                name: "bins",
                elem: Elem::U32,
                len: BINS as u64,
                role: BufferRole::Output(OutputInit::Identity(0.0)),
            },
        ]
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let n = instance.shape.elements();
        let x = self
            .distribution()
            .draw(&generator_named(seed, "x", n), Elem::U8, n);
        let mut counts = [0u64; BINS];
        if let HostData::U8(bytes) = &x {
            bytes.iter().for_each(|&b| counts[usize::from(b)] += 1);
        }
        Prepared {
            inputs: vec![("x".to_string(), x)],
            reference: counts.iter().map(|&c| c as f64).collect(),
        }
    }

    fn check(
        &self,
        _instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let Some(HostData::U32(bins)) = output(outputs, "bins") else {
            return super::rowwise::missing();
        };
        check_bins(&prepared.reference, bins)
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        instance.shape.elements() + 4 * BINS as u64
    }

    // The check reads the counts, never the bytes.
    fn check_reads_inputs(&self) -> bool {
        false
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        [1, 1000, 1_000_003].into_iter().map(Shape::flat).collect()
    }
}

/// Every bin against its count; the detail names the first bin wrong.
fn check_bins(counts: &[f64], bins: &[u32]) -> CheckOutcome {
    let total: f64 = counts.iter().sum();
    let got_total: f64 = bins.iter().map(|&b| f64::from(b)).sum();
    let wrong: Vec<usize> = (0..BINS)
        .filter(|&b| f64::from(bins[b]) != counts[b])
        .collect();
    let detail = match wrong.first() {
        None => format!("all 256 bins hold their counts ({total} bytes)"),
        Some(&b) => {
            let how = if got_total < total {
                format!("{} counts lost in all (a race?)", total - got_total)
            } else if got_total > total {
                format!("{} counts too many in all", got_total - total)
            } else {
                "the right total in the wrong bins".to_string()
            };
            format!(
                "{} of 256 bins wrong; first bin {b}: expected {}, got {}; {how}",
                wrong.len(),
                counts[b],
                bins[b]
            )
        }
    };
    CheckOutcome {
        error: (got_total - total).abs().max(wrong.len() as f64) / total.max(1.0),
        tolerance: 0.0,
        pass: wrong.is_empty(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(x: &HostData) -> Vec<u32> {
        let mut bins = vec![0u32; BINS];
        (0..x.len()).for_each(|i| bins[x.get(i) as usize] += 1);
        bins
    }

    // The right counts pass; a lost update, a byte counted twice and a
    // byte counted in its neighbour's bin each fail.
    #[test]
    fn the_check_catches_lost_extra_and_misplaced_counts() {
        for skewed in [false, true] {
            let p = HistogramU8 { skewed };
            let i = Instance {
                shape: Shape::flat(100_003),
                dtype: Elem::U8,
            };
            let prepared = p.prepare(&i, 3, Data::Timed);
            let right = counted(prepared.input("x").unwrap());
            let judge = |bins: &[u32]| {
                p.check(
                    &i,
                    &prepared,
                    &[("bins", &HostData::U32(bins.to_vec()))],
                    Data::Timed,
                )
            };
            assert!(judge(&right).pass);
            let mut lost = right.clone();
            lost[0] -= 1;
            let out = judge(&lost);
            assert!(
                !out.pass && out.detail.contains("1 counts lost"),
                "{}",
                out.detail
            );
            let mut twice = right.clone();
            twice[200] += 1;
            assert!(!judge(&twice).pass);
            let mut moved = right.clone();
            moved[5] -= 1;
            moved[6] += 1;
            let out = judge(&moved);
            assert!(
                !out.pass && out.detail.contains("wrong bins"),
                "{}",
                out.detail
            );
        }
    }

    // The skewed input gives its value seven eighths of the bytes; the
    // uniform one about 1/256 each.
    #[test]
    fn inputs_are_skewed_or_uniform() {
        let i = Instance {
            shape: Shape::flat(1 << 16),
            dtype: Elem::U8,
        };
        let skewed = HistogramU8 { skewed: true }.prepare(&i, 1, Data::Timed);
        assert!((skewed.reference[0] / 65536.0 - 0.875).abs() < 0.01);
        let uniform = HistogramU8 { skewed: false }.prepare(&i, 1, Data::Timed);
        assert!(
            uniform
                .reference
                .iter()
                .all(|&c| (150.0..370.0).contains(&c))
        );
        assert_eq!(HistogramU8 { skewed: false }.bytes(&i), 65536 + 1024);
    }
}
