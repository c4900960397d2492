//! The figures of one timed size derived from its samples: median, range,
//! spread, bandwidth against the datasheet peak, the primary figure of the
//! problem's kind (GB/s, TFLOP/s, time per access), the percentage of the
//! measured ceiling it is held to (read, copy or a named ceiling, as the
//! size's `ceiling` says), and the labels. One process's samples and the
//! pooled samples of several go through the same derivation. [`value`]
//! gives any figure of a size by its name, as directives address it.

use crate::method::{self as measure, Ceilings};
use crate::problem::reports::{self, ACCESSES, FLOP, Reports};
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
/// Label: the measuring budget ended sampling short of the minimum sample
/// count ([`SizeResult::budget`]).
pub const BUDGET: &str = "budget";

/// Figures every timed size has, by the names directives use.
pub const COMMON: &[&str] = &[
    "time", "gbs", "pct_peak", "hot", "spread", "samples", "error",
];

/// The figures sizes of a problem that `reports` and does `work` have: the
/// [`COMMON`] ones, `pct_ceiling` where it is held to a ceiling, its kind's
/// own (`tflops`; `ns_per_access` and `cycles_per_access`) and a rate per
/// second for each unit of work (`elements_per_s`).
pub fn names_for(reports: Reports, work: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
    if reports.has_ceiling() {
        names.push("pct_ceiling".into());
    }
    match reports {
        Reports::Flops(c) => names.push(c.figure.into()),
        Reports::Latency => {
            names.push("ns_per_access".into());
            names.push("cycles_per_access".into());
        }
        Reports::Bandwidth(_) | Reports::HostLink(_) => {}
    }
    names.extend(work.iter().map(|unit| format!("{unit}_per_s")));
    names
}

/// The figures sizes of `problem` have ([`names_for`] of what it reports
/// and the units of its work).
pub fn names_of_problem(problem: &dyn crate::problem::Problem) -> Vec<String> {
    let probe = crate::problem::Instance {
        shape: crate::problem::Shape::flat(1),
        dtype: problem.dtypes()[0],
    };
    let work: Vec<&str> = problem.work(&probe).iter().map(|(unit, _)| *unit).collect();
    names_for(problem.reports(), &work)
}

/// The figure `name` of `r`, in the unit [`unit`] gives, or `None` when
/// `r` does not have it: `time` (median, µs), `hot` (µs), `spread`
/// (relative), `samples`, `error`, `gbs`, `pct_peak`, `pct_ceiling`,
/// `tflops` (the `flop` rate), `ns_per_access` and `cycles_per_access`
/// (over the `accesses` rate; cycles at the SM clock the samples recorded,
/// so none when it is unknown), and every rate of `metrics`
/// (`elements_per_s`).
pub fn value(r: &SizeResult, name: &str) -> Option<f64> {
    let rate = |unit: &str| r.metrics.get(&format!("{unit}_per_s")).copied();
    let ns = || rate(ACCESSES).filter(|v| *v > 0.0).map(|v| 1e9 / v);
    Some(match name {
        "time" => r.median_us,
        "hot" => r.hot_median_us?,
        "spread" => r.rel_spread,
        "samples" => f64::from(r.samples),
        "error" => r.error,
        "gbs" => r.gbs,
        "pct_peak" => r.pct_peak,
        "pct_ceiling" => r.pct_ceiling?,
        "tflops" => rate(FLOP)? / 1e12,
        "ns_per_access" => ns()?,
        "cycles_per_access" => {
            let clock = Some(r.sm_clock_mhz).filter(|c| *c > 0.0)?;
            ns()? * clock / 1e3
        }
        other => r.metrics.get(other).copied()?,
    })
}

/// The figures `r` has, in [`names_for`]'s order, then its other rates.
pub fn names_of(r: &SizeResult) -> Vec<String> {
    let mut names: Vec<String> = COMMON
        .iter()
        .chain(&[
            "pct_ceiling",
            "tflops",
            "ns_per_access",
            "cycles_per_access",
        ])
        .map(|s| s.to_string())
        .chain(r.metrics.keys().cloned())
        .filter(|name| value(r, name).is_some())
        .collect();
    names.dedup();
    names
}

/// The unit a figure is in, for labels: `µs`, `GB/s`, `%`, `TFLOP/s`,
/// `ns`, `cycles`, `/s` (a rate), or nothing (a count or ratio).
pub fn unit(name: &str) -> &'static str {
    match name {
        "time" | "hot" => "µs",
        "gbs" => "GB/s",
        "pct_peak" | "pct_ceiling" => "%",
        "tflops" => "TFLOP/s",
        "ns_per_access" => "ns",
        "cycles_per_access" => "cycles",
        n if n.ends_with("_per_s") => "/s",
        _ => "",
    }
}

/// The primary figure of `r`: its `figure`, or `gbs` when absent.
pub fn primary(r: &SizeResult) -> &str {
    r.figure.as_deref().unwrap_or("gbs")
}

/// Fills `r`'s kind fields (`figure`, `ceiling`) for a problem that
/// `reports`, leaving both absent for a problem held to the read ceiling.
pub fn set_kind(r: &mut SizeResult, reports: Reports) {
    r.figure = reports.figure_field().map(str::to_string);
    r.ceiling = reports.ceiling_field().map(str::to_string);
}

/// Sets `r.pct_ceiling`: the primary figure as a percentage of the
/// ceiling `r.ceiling` names (the copy ceiling measured at this size when
/// there is one, else the 4 GiB copy ceiling; a named ceiling of
/// `ceilings`, compared with the figure it bounds), of the read ceiling
/// when absent, and none for a latency or a named ceiling not measured.
/// Call it again after the rates of `r.metrics` change.
pub fn hold_to_ceiling(r: &mut SizeResult, ceilings: &Ceilings) {
    let pct = |figure: f64, ceiling: f64| 100.0 * figure / ceiling;
    r.pct_ceiling = match (r.ceiling.as_deref(), r.figure.as_deref()) {
        (None, Some("ns_per_access")) => None,
        (Some("copy"), _) => Some(pct(r.gbs, r.ceiling_gbs.unwrap_or(ceilings.copy_gbs))),
        (None, _) => Some(pct(r.gbs, ceilings.read_gbs)),
        (Some(name), _) => reports::named_ceiling(name).and_then(|c| {
            let measured = ceilings.named(name)?;
            Some(pct(value(r, c.figure)?, measured.value))
        }),
    };
}

/// Fills the sample-derived fields of `r` (median, min, max, samples,
/// spread, bandwidths, the percentage of its ceiling, labels) from
/// `times_us`; `r.bytes` and `r.ceiling` must be set (and `r.budget`
/// where the budget ended sampling). Rates already in
/// `r.metrics` (a pooled record's) follow the new median.
pub fn derive(r: &mut SizeResult, times_us: &[f64], noisy: bool, reference: &Reference<'_>) {
    let median = measure::median(times_us);
    let old_median_us = r.median_us;
    r.median_us = median;
    r.min_us = times_us.iter().copied().fold(f64::INFINITY, f64::min);
    r.max_us = times_us.iter().copied().fold(0.0, f64::max);
    r.samples = times_us.len() as u32;
    r.rel_spread = measure::rel_stdev(times_us);
    r.gbs = r.bytes as f64 / (median * 1e-6) / 1e9;
    r.pct_peak = 100.0 * r.gbs / reference.peak_gbs;
    if old_median_us > 0.0 && old_median_us.is_finite() {
        rescale_rates(r, old_median_us);
    }
    hold_to_ceiling(r, reference.ceilings);
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
    if r.budget.is_some() {
        r.labels.push(BUDGET.to_string());
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
            named: Default::default(),
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

    fn with_named(name: &str, value: f64, unit: &str) -> Ceilings {
        let mut c = ceilings();
        c.named.insert(
            name.into(),
            crate::method::MeasuredCeiling {
                value,
                unit: unit.into(),
                peak: None,
                sm_clock_mhz: None,
            },
        );
        c
    }

    // A FLOP problem: 2 M N K FLOP over the median is its TFLOP/s, its
    // primary figure, and pct_ceiling is of the FMA ceiling, not of a
    // bandwidth; without the ceiling measured there is no percentage.
    #[test]
    fn flops_are_work_over_the_median_against_the_fma_ceiling() {
        let c = with_named("fp32_fma", 50.0, "TFLOP/s");
        let mut r = SizeResult {
            bytes: 3 * 4096 * 4096 * 4,
            ..SizeResult::default()
        };
        set_kind(&mut r, Reports::Flops(reports::FP32_FMA));
        assert_eq!(
            (r.figure.as_deref(), r.ceiling.as_deref()),
            (Some("tflops"), Some("fp32_fma"))
        );
        let flop = 2.0 * 4096f64.powi(3);
        derive(&mut r, &[4000.0], false, &reference(&c));
        add_rates(&mut r, &[(FLOP, flop)]);
        hold_to_ceiling(&mut r, &c);
        let tflops = value(&r, "tflops").unwrap();
        assert!((tflops - flop / 4e-3 / 1e12).abs() < 1e-9);
        assert!((r.pct_ceiling.unwrap() - 100.0 * tflops / 50.0).abs() < 1e-9);
        assert_eq!(primary(&r), "tflops");
        hold_to_ceiling(&mut r, &ceilings());
        assert_eq!(r.pct_ceiling, None);
    }

    // A latency: median over the dependent loads is ns per access, times
    // the SM clock the samples recorded is cycles per access (none when
    // the clock is unknown), and there is no ceiling.
    #[test]
    fn latency_is_the_median_over_the_accesses() {
        let c = ceilings();
        let mut r = SizeResult {
            bytes: 64 << 20,
            sm_clock_mhz: 1980.0,
            ..SizeResult::default()
        };
        set_kind(&mut r, Reports::Latency);
        derive(&mut r, &[39.0, 40.0, 41.0], false, &reference(&c));
        add_rates(&mut r, &[(ACCESSES, 65536.0)]);
        hold_to_ceiling(&mut r, &c);
        let ns = value(&r, "ns_per_access").unwrap();
        assert!((ns - 40_000.0 / 65536.0).abs() < 1e-9);
        let cycles = value(&r, "cycles_per_access").unwrap();
        assert!((cycles - ns * 1.98).abs() < 1e-9);
        assert_eq!(r.pct_ceiling, None);
        assert_eq!(r.ceiling, None);
        assert!(!names_of(&r).contains(&"pct_ceiling".to_string()));
        r.sm_clock_mhz = 0.0;
        assert_eq!(value(&r, "cycles_per_access"), None);
    }

    // A host-to-device copy is GB/s as a percentage of the pinned host
    // link of its direction, not of the device's memory.
    #[test]
    fn host_link_bandwidth_is_held_to_its_direction() {
        let c = with_named("h2d_pinned", 50.0, "GB/s");
        let mut r = SizeResult {
            bytes: 1 << 30,
            ..SizeResult::default()
        };
        set_kind(&mut r, Reports::HostLink(reports::Direction::H2d));
        assert_eq!(
            (r.figure.as_deref(), r.ceiling.as_deref()),
            (None, Some("h2d_pinned"))
        );
        derive(&mut r, &[(1u64 << 30) as f64 / 40e3], false, &reference(&c));
        assert!((r.gbs - 40.0).abs() < 1e-9);
        assert!((r.pct_ceiling.unwrap() - 80.0).abs() < 1e-9);
        assert_eq!(primary(&r), "gbs");
    }

    // A pooled record's rates follow its new median through derive, so the
    // FLOP/s and its percentage are of the pooled median.
    #[test]
    fn pooled_rates_follow_the_median() {
        let c = with_named("fp32_fma", 50.0, "TFLOP/s");
        let mut r = SizeResult::default();
        set_kind(&mut r, Reports::Flops(reports::FP32_FMA));
        derive(&mut r, &[2.0], false, &reference(&c));
        add_rates(&mut r, &[(FLOP, 40e6)]);
        derive(&mut r, &[4.0, 4.0], false, &reference(&c));
        assert!((value(&r, "tflops").unwrap() - 10.0).abs() < 1e-9);
        assert!((r.pct_ceiling.unwrap() - 20.0).abs() < 1e-9);
    }

    // Every figure the names of a problem's kind promise is one `value`
    // knows; an unknown name has none.
    #[test]
    fn names_are_figures() {
        let mut r = SizeResult {
            hot_median_us: Some(1.0),
            pct_ceiling: Some(1.0),
            sm_clock_mhz: 1000.0,
            ..SizeResult::default()
        };
        r.metrics.insert("flop_per_s".into(), 1e12);
        r.metrics.insert("accesses_per_s".into(), 1e9);
        for kind in [
            Reports::Bandwidth(crate::problem::Bound::Read),
            Reports::Flops(reports::FP32_FMA),
            Reports::Latency,
            Reports::HostLink(reports::Direction::D2h),
        ] {
            for name in names_for(kind, &["flop", "accesses"]) {
                assert!(value(&r, &name).is_some(), "{name}");
            }
        }
        assert_eq!(value(&r, "tflop"), None);
        assert_eq!(unit("cycles_per_access"), "cycles");
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
