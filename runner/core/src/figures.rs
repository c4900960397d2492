//! The figures of one timed size derived from its samples: median, range,
//! spread, bandwidth against the datasheet peak and the measured ceiling
//! (read or copy, as the size's `ceiling` says),
//! and the labels. One process's samples and the pooled samples of several
//! go through the same derivation.

use crate::method::{self as measure, Ceilings};
use crate::record::SizeResult;

/// What the bandwidth and the labels are measured against.
pub struct Reference<'a> {
    /// Datasheet peak memory bandwidth, GB/s.
    pub peak_gbs: f64,
    /// L2 size, bytes.
    pub l2_bytes: u64,
    /// The ceilings and launch floor of the run.
    pub ceilings: &'a Ceilings,
}

/// Label: the bytes moved fit in L2.
pub const FITS_IN_L2: &str = "fits-in-l2";
/// Label: the median is under twice the launch floor.
pub const LAUNCH_BOUND: &str = "launch-bound";
/// Label: the noise target was not met before the time-out.
pub const NOISY: &str = "noisy";

/// Fills the sample-derived fields of `r` (median, min, max, samples,
/// spread, bandwidths, labels) from `times_us`; `r.bytes` must be set.
pub fn derive(r: &mut SizeResult, times_us: &[f64], noisy: bool, reference: &Reference<'_>) {
    let median = measure::median(times_us);
    r.median_us = median;
    r.min_us = times_us.iter().copied().fold(f64::INFINITY, f64::min);
    r.max_us = times_us.iter().copied().fold(0.0, f64::max);
    r.samples = times_us.len() as u32;
    r.rel_spread = measure::rel_stdev(times_us);
    r.gbs = r.bytes as f64 / (median * 1e-6) / 1e9;
    r.pct_peak = 100.0 * r.gbs / reference.peak_gbs;
    let ceiling = match (r.ceiling.as_deref(), r.ceiling_gbs) {
        (Some("copy"), Some(at_size)) => at_size,
        (Some("copy"), None) => reference.ceilings.copy_gbs,
        _ => reference.ceilings.read_gbs,
    };
    r.pct_ceiling = Some(100.0 * r.gbs / ceiling);
    r.labels.clear();
    if r.bytes <= reference.l2_bytes {
        r.labels.push(FITS_IN_L2.to_string());
    }
    if median < 2.0 * reference.ceilings.launch_floor_us {
        r.labels.push(LAUNCH_BOUND.to_string());
    }
    if noisy {
        r.labels.push(NOISY.to_string());
    }
}

/// Adds to `r.metrics` each unit of `work` per run as a rate per second
/// over the median (`elements` becomes `elements_per_s`); `r.median_us`
/// must be set. Pooled records keep the units and recompute the rates.
pub fn add_rates(r: &mut SizeResult, work: &[(&str, f64)]) {
    let seconds = r.median_us * 1e-6;
    for (unit, amount) in work {
        r.metrics.insert(format!("{unit}_per_s"), amount / seconds);
    }
}

/// Recomputes the rates of `r.metrics` for a new median, from the old:
/// rate x old median is the work per run.
pub fn rescale_rates(r: &mut SizeResult, old_median_us: f64) {
    for v in r.metrics.values_mut() {
        *v = *v * old_median_us / r.median_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(ceilings: &Ceilings) -> Reference<'_> {
        Reference {
            peak_gbs: 4800.0,
            l2_bytes: 60 << 20,
            ceilings,
        }
    }

    fn ceilings() -> Ceilings {
        Ceilings {
            read_gbs: 4000.0,
            copy_gbs: 3500.0,
            launch_floor_us: 3.0,
            buffer_bytes: 4 << 30,
        }
    }

    // 4 GB in 1000 µs is 4000 GB/s: 83.3% of a 4.8 TB/s peak, 100% of a
    // 4 TB/s ceiling; a large input gets no label.
    #[test]
    fn bandwidth_is_bytes_over_median() {
        let c = ceilings();
        let mut r = SizeResult {
            bytes: 4_000_000_000,
            ..SizeResult::default()
        };
        derive(&mut r, &[990.0, 1000.0, 1010.0], false, &reference(&c));
        assert_eq!(r.median_us, 1000.0);
        assert_eq!((r.min_us, r.max_us, r.samples), (990.0, 1010.0, 3));
        assert!((r.gbs - 4000.0).abs() < 1e-9);
        assert!((r.pct_peak - 83.333).abs() < 1e-3);
        assert!((r.pct_ceiling.unwrap() - 100.0).abs() < 1e-9);
        assert!(r.labels.is_empty());
    }

    // A small input near the launch floor carries both labels, and the
    // noisy flag becomes a label.
    #[test]
    fn small_fast_noisy_sizes_are_labelled() {
        let c = ceilings();
        let mut r = SizeResult {
            bytes: 4096,
            ..SizeResult::default()
        };
        derive(&mut r, &[4.0, 5.0], true, &reference(&c));
        assert_eq!(r.labels, [FITS_IN_L2, LAUNCH_BOUND, NOISY]);
    }

    // Work per run becomes a rate over the median, and follows a new median.
    #[test]
    fn rates_are_work_over_the_median() {
        let mut r = SizeResult {
            median_us: 2.0,
            ..SizeResult::default()
        };
        add_rates(&mut r, &[("elements", 4e6)]);
        assert_eq!(r.metrics["elements_per_s"], 2e12);
        r.median_us = 4.0;
        rescale_rates(&mut r, 2.0);
        assert_eq!(r.metrics["elements_per_s"], 1e12);
    }

    // A problem bounded by the copy ceiling is a percentage of it.
    #[test]
    fn copy_bound_sizes_compare_with_the_copy_ceiling() {
        let c = ceilings();
        let mut r = SizeResult {
            bytes: 3_500_000_000,
            ceiling: Some("copy".into()),
            ..SizeResult::default()
        };
        derive(&mut r, &[1000.0], false, &reference(&c));
        assert!((r.pct_ceiling.unwrap() - 100.0).abs() < 1e-9);
        // A copy measured at the size itself is the ceiling when there.
        r.ceiling_gbs = Some(7000.0);
        derive(&mut r, &[1000.0], false, &reference(&c));
        assert!((r.pct_ceiling.unwrap() - 50.0).abs() < 1e-9);
    }
}
