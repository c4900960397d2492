//! Pooling: an example is measured by several child processes, each with a
//! share of the sampling budget (see [`crate::method::Policy::processes`]),
//! and their samples are pooled size by size into one record. The median
//! over the pooled samples weighs each process's state (its allocations,
//! context and code placement) equally, so one unlucky process moves it by
//! a fraction of what it would move a single-process median.

use crate::figures;
use crate::method::{self as measure, Ceilings};
use crate::record::{EdgeCheck, Record, SizeResult, Status};
use serde::{Deserialize, Serialize};

/// What one child process returns: its record and, per timed size in the
/// record's order, the kept sample times in microseconds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measured {
    /// The record of this process alone.
    pub record: Record,
    /// Raw samples, one vector per entry of `record.sizes`.
    #[serde(with = "crate::nonfinite::nested")]
    pub samples_us: Vec<Vec<f64>>,
}

/// Whether a process ended in a way that ends the example (nothing to pool).
pub fn is_final_failure(status: Status) -> bool {
    !matches!(status, Status::Pass | Status::Wrong)
}

/// Pools the records of processes that all ran every size (status pass or
/// wrong). Times are pooled; ceilings, hot figures and clocks are the
/// median over processes; a check fails if it failed in any process, and
/// the largest error is kept.
pub fn pool(mut runs: Vec<Measured>) -> Record {
    assert!(!runs.is_empty(), "pool needs at least one process");
    if runs.len() == 1 {
        return runs.remove(0).record;
    }
    let mut out = runs[0].record.clone();
    out.processes = runs.len() as u32;
    out.wall_s = runs.iter().map(|m| m.record.wall_s).sum();
    out.cost = runs
        .iter()
        .filter_map(|m| m.record.cost)
        .reduce(crate::record::Cost::plus);
    out.cost_by_process = runs.iter().filter_map(|m| m.record.cost).collect();
    out.measured_at = runs
        .iter()
        .map(|m| m.record.measured_at.clone())
        .max()
        .unwrap_or_default();
    out.ceilings = pooled_ceilings(&runs);
    if out.message.is_empty() {
        out.message = runs
            .iter()
            .map(|m| m.record.message.clone())
            .find(|m| !m.is_empty())
            .unwrap_or_default();
    }
    // Entries are matched by what they are of (the value of a sweep, the
    // size), never by position alone: one value's samples are never
    // pooled with another's.
    for check in out.edge_checks.iter_mut() {
        for m in &runs[1..] {
            let same = |c: &&EdgeCheck| {
                c.sweep == check.sweep && c.size() == check.size() && c.rows == check.rows
            };
            if let Some(other) = m.record.edge_checks.iter().find(same) {
                merge_check(check, other);
            }
        }
    }
    let reference = match (&out.gpu, &out.ceilings) {
        (Some(gpu), Some(ceilings)) => Some(figures::Reference {
            peak_gbs: gpu.peak_gbs,
            l2_bytes: gpu.l2_bytes,
            ceilings,
        }),
        _ => None,
    };
    for size in out.sizes.iter_mut() {
        let same: Vec<(&SizeResult, &Vec<f64>)> = runs
            .iter()
            .filter_map(|m| {
                let i = m.record.sizes.iter().position(|s| same_point(s, size))?;
                Some((&m.record.sizes[i], m.samples_us.get(i)?))
            })
            .collect();
        pool_size(size, &same);
        if let Some(reference) = &reference {
            let times: Vec<f64> = same.iter().flat_map(|(_, t)| t.iter().copied()).collect();
            let noisy = same
                .iter()
                .any(|(s, _)| s.labels.iter().any(|l| l == figures::NOISY));
            figures::derive(size, &times, noisy, reference);
        }
    }
    out.status = if out.sizes.iter().all(|s| s.pass) && out.edge_checks.iter().all(|c| c.pass) {
        Status::Pass
    } else {
        Status::Wrong
    };
    out
}

/// Whether two processes' figures are of the same measured point: the
/// same value of the swept parameter at the same size.
fn same_point(a: &SizeResult, b: &SizeResult) -> bool {
    a.sweep == b.sweep && a.size() == b.size() && a.rows == b.rows
}

/// Hot figures, clocks, dropped samples, the budget's end and the check
/// of one size.
fn pool_size(size: &mut SizeResult, same: &[(&SizeResult, &Vec<f64>)]) {
    let hot: Vec<f64> = same.iter().filter_map(|(s, _)| s.hot_median_us).collect();
    size.hot_median_us = (!hot.is_empty()).then(|| measure::median(&hot));
    let clocks: Vec<f64> = same
        .iter()
        .map(|(s, _)| s.sm_clock_mhz)
        .filter(|c| *c > 0.0)
        .collect();
    size.sm_clock_mhz = measure::median(&clocks);
    size.throttled_dropped = same.iter().map(|(s, _)| s.throttled_dropped).sum();
    // The budget ended sampling when it did in any process; one sample
    // took what the slowest of those says.
    size.budget = same
        .iter()
        .filter_map(|(s, _)| s.budget)
        .reduce(|a, b| if b.sample_s > a.sample_s { b } else { a });
    let at_size: Vec<f64> = same.iter().filter_map(|(s, _)| s.ceiling_gbs).collect();
    size.ceiling_gbs = (!at_size.is_empty()).then(|| measure::median(&at_size));
    for (s, _) in same {
        if s.error > size.error || (!s.pass && size.pass) {
            size.error = s.error;
        }
        size.pass &= s.pass;
    }
}

fn merge_check(into: &mut EdgeCheck, other: &EdgeCheck) {
    into.error = into.error.max(other.error);
    into.pass &= other.pass;
}

fn pooled_ceilings(runs: &[Measured]) -> Option<Ceilings> {
    let cs: Vec<&Ceilings> = runs
        .iter()
        .filter_map(|m| m.record.ceilings.as_ref())
        .collect();
    let first = cs.first()?;
    let med =
        |f: fn(&Ceilings) -> f64| measure::median(&cs.iter().map(|c| f(c)).collect::<Vec<_>>());
    Some(Ceilings {
        read_gbs: med(|c| c.read_gbs),
        copy_gbs: med(|c| c.copy_gbs),
        launch_floor_us: med(|c| c.launch_floor_us),
        buffer_bytes: first.buffer_bytes,
        named: pooled_named(&cs),
    })
}

/// Each named ceiling, the median over the processes that measured it.
fn pooled_named(cs: &[&Ceilings]) -> std::collections::BTreeMap<String, measure::MeasuredCeiling> {
    let mut out = std::collections::BTreeMap::new();
    for (name, first) in cs.iter().flat_map(|c| &c.named) {
        if out.contains_key(name) {
            continue;
        }
        let same: Vec<&measure::MeasuredCeiling> =
            cs.iter().filter_map(|c| c.named(name)).collect();
        let med = |f: fn(&measure::MeasuredCeiling) -> Option<f64>| {
            let v: Vec<f64> = same.iter().filter_map(|m| f(m)).collect();
            (!v.is_empty()).then(|| measure::median(&v))
        };
        out.insert(
            name.clone(),
            measure::MeasuredCeiling {
                value: med(|m| Some(m.value)).unwrap_or(first.value),
                unit: first.unit.clone(),
                peak: med(|m| m.peak),
                sm_clock_mhz: med(|m| m.sm_clock_mhz),
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process's result for one size of 2^20 floats with the given
    /// samples, measured on a GPU with its ceilings (so that the pooled
    /// figures are derived) and one passing edge check.
    fn process(times: &[f64], floor: f64, pass: bool) -> Measured {
        use crate::record::{EdgeCheck, GpuFacts, test_records};
        let mut record = test_records::record("reductions/k", "key");
        record.gpu = Some(GpuFacts {
            name: "NVIDIA H200".into(),
            peak_gbs: 4800.0,
            l2_bytes: 60 << 20,
            ..GpuFacts::default()
        });
        record.ceilings = Some(crate::method::Ceilings {
            read_gbs: 4500.0,
            copy_gbs: 4300.0,
            launch_floor_us: floor,
            buffer_bytes: 1 << 32,
            named: Default::default(),
        });
        let mut size = test_records::size(1 << 20, 4 << 20, times[0], pass);
        size.error = if pass { 1e-9 } else { 1e-3 };
        size.hot_median_us = Some(times[0]);
        record.sizes = vec![size];
        record.edge_checks = vec![EdgeCheck {
            n: crate::size::Size(1000),
            rows: None,
            dims: None,
            sweep: None,
            error: 0.0,
            tolerance: 0.0,
            pass: true,
        }];
        record.status = if pass { Status::Pass } else { Status::Wrong };
        record.wall_s = 1.0;
        Measured {
            record,
            samples_us: vec![times.to_vec()],
        }
    }

    // One slow process among three shifts the pooled median by a third of
    // its shift or less, where alone it would have set it.
    #[test]
    fn the_median_is_over_all_samples() {
        let r = pool(vec![
            process(&[10.0, 10.0, 10.0], 2.0, true),
            process(&[10.0, 10.0, 10.0], 3.0, true),
            process(&[13.0, 13.0, 13.0], 4.0, true),
        ]);
        let s = &r.sizes[0];
        assert_eq!(r.processes, 3);
        assert_eq!(s.samples, 9);
        assert_eq!(s.median_us, 10.0);
        assert_eq!((s.min_us, s.max_us), (10.0, 13.0));
        assert_eq!(s.hot_median_us, Some(10.0));
        assert_eq!(r.ceilings.as_ref().unwrap().launch_floor_us, 3.0);
        assert_eq!(r.wall_s, 3.0);
        let bytes = s.bytes as f64;
        assert!((s.gbs - bytes / 10e-6 / 1e9).abs() < 1e-6);
    }

    // A wrong answer in any process makes the pooled size and record wrong.
    #[test]
    fn a_wrong_process_makes_the_result_wrong() {
        let r = pool(vec![
            process(&[10.0], 2.0, true),
            process(&[10.0], 2.0, false),
        ]);
        assert!(!r.sizes[0].pass);
        assert_eq!(r.sizes[0].error, 1e-3);
        assert_eq!(r.status, Status::Wrong);
    }

    // An edge size that one process got wrong makes the pooled record
    // wrong even when every timed size passed: the edge checks are part of
    // the verdict, and the pooled check keeps the worst error.
    #[test]
    fn a_failed_edge_check_makes_the_result_wrong() {
        let mut bad = process(&[10.0], 2.0, true);
        bad.record.edge_checks[0].pass = false;
        bad.record.edge_checks[0].error = 0.5;
        bad.record.status = Status::Wrong;
        let r = pool(vec![process(&[10.0], 2.0, true), bad]);
        assert!(r.sizes[0].pass);
        assert!(!r.edge_checks[0].pass);
        assert_eq!(r.edge_checks[0].error, 0.5);
        assert_eq!(r.status, Status::Wrong);
        let good = pool(vec![
            process(&[10.0], 2.0, true),
            process(&[10.0], 2.0, true),
        ]);
        assert_eq!(good.status, Status::Pass);
    }

    // The pooled error is the worst process's: the largest among passing
    // processes, and a failing process's over any passing one's, even a
    // smaller one (a failure's error is what the reader must see).
    #[test]
    fn the_pooled_error_is_the_worst_processs() {
        let with_error = |error: f64, pass: bool| {
            let mut p = process(&[10.0], 2.0, pass);
            p.record.sizes[0].error = error;
            p
        };
        let r = pool(vec![
            with_error(2e-9, true),
            with_error(5e-9, true),
            with_error(3e-9, true),
        ]);
        assert_eq!((r.sizes[0].error, r.sizes[0].pass), (5e-9, true));
        let r = pool(vec![with_error(1e-3, true), with_error(1e-4, false)]);
        assert_eq!((r.sizes[0].error, r.sizes[0].pass), (1e-4, false));
    }

    // A process that read no SM clock (0) is left out of the pooled clock,
    // and the copy ceiling at the size is the processes' median.
    #[test]
    fn clocks_and_ceilings_pool_over_the_processes_that_have_them() {
        let mut a = process(&[10.0], 2.0, true);
        a.record.sizes[0].sm_clock_mhz = 1980.0;
        a.record.sizes[0].ceiling_gbs = Some(4000.0);
        let mut b = process(&[10.0], 2.0, true);
        b.record.sizes[0].sm_clock_mhz = 0.0;
        b.record.sizes[0].ceiling_gbs = Some(4200.0);
        let r = pool(vec![a, b]);
        assert_eq!(r.sizes[0].sm_clock_mhz, 1980.0);
        assert_eq!(r.sizes[0].ceiling_gbs, Some(4100.0));
    }

    // A size is labelled noisy when any process found it noisy, and only
    // then: another label (fits in L2) does not make it noisy.
    #[test]
    fn noisy_in_one_process_is_noisy_pooled() {
        let labelled = |label: &str| {
            let mut p = process(&[10.0], 2.0, true);
            p.record.sizes[0].labels = vec![label.to_string()];
            p
        };
        let noisy = |r: &Record| r.sizes[0].labels.iter().any(|l| l == figures::NOISY);
        let quiet = pool(vec![
            labelled(figures::FITS_IN_L2),
            labelled(figures::FITS_IN_L2),
        ]);
        assert!(!noisy(&quiet), "{:?}", quiet.sizes[0].labels);
        assert!(noisy(&pool(vec![
            labelled(figures::FITS_IN_L2),
            labelled(figures::NOISY)
        ])));
    }

    // A size the budget ended in any process is marked so pooled, with
    // the slowest process's sample time, and labelled `budget`; a size no
    // process ended so has neither.
    #[test]
    fn the_budget_mark_is_pooled() {
        let ended = |sample_s: f64| {
            let mut p = process(&[2e6], 2.0, true);
            p.record.sizes[0].budget = Some(crate::method::BudgetEnd {
                budget_s: 30.0,
                sample_s,
            });
            p
        };
        let r = pool(vec![ended(2.0), process(&[2e6], 2.0, true), ended(2.5)]);
        assert_eq!(r.sizes[0].budget.map(|b| b.sample_s), Some(2.5));
        assert!(r.sizes[0].labels.iter().any(|l| l == figures::BUDGET));
        let r = pool(vec![
            process(&[10.0], 2.0, true),
            process(&[10.0], 2.0, true),
        ]);
        assert!(r.sizes[0].budget.is_none());
        assert!(!r.sizes[0].labels.iter().any(|l| l == figures::BUDGET));
    }

    // The pooled record keeps a message one process gave (a warning such as
    // a clock that could not be read), the first non-empty one.
    #[test]
    fn a_processs_message_is_kept() {
        let mut said = process(&[10.0], 2.0, true);
        said.record.message = "clocks not read".into();
        let r = pool(vec![process(&[10.0], 2.0, true), said]);
        assert_eq!(r.message, "clocks not read");
    }

    // Two values of a sweep at the same size are two measured points: each
    // pools only its own samples and checks (a second process listing them
    // in the other order changes nothing), and a wrong value makes the
    // record wrong.
    #[test]
    fn each_swept_value_pools_its_own_samples() {
        let swept = |fast: bool, first: u64| {
            let mut p = process(&[10.0, 10.0, 10.0], 2.0, true);
            let mut other = p.record.sizes[0].clone();
            other.median_us = 40.0;
            let value = |v: u64| {
                Some(crate::sweep::SweepValue {
                    name: "STRIDE".into(),
                    value: v,
                })
            };
            p.record.sizes[0].sweep = value(first);
            other.sweep = value(if first == 1 { 32 } else { 1 });
            let (t1, t32) = if fast {
                (vec![10.0; 3], vec![40.0; 3])
            } else {
                (vec![11.0; 3], vec![44.0; 3])
            };
            let mut check = p.record.edge_checks[0].clone();
            check.sweep = other.sweep.clone();
            p.record.edge_checks[0].sweep = p.record.sizes[0].sweep.clone();
            p.record.sizes.push(other);
            p.record.edge_checks.push(check);
            p.samples_us = if first == 1 {
                vec![t1, t32]
            } else {
                vec![t32, t1]
            };
            p
        };
        let mut b = swept(false, 32);
        // The second process's check of STRIDE = 32 failed.
        b.record.edge_checks[0].pass = false;
        let r = pool(vec![swept(true, 1), b]);
        let at = |v: u64| {
            r.sizes
                .iter()
                .find(|s| s.sweep.as_ref().is_some_and(|s| s.value == v))
                .unwrap()
        };
        assert_eq!((at(1).samples, at(1).min_us, at(1).max_us), (6, 10.0, 11.0));
        assert_eq!(
            (at(32).samples, at(32).min_us, at(32).max_us),
            (6, 40.0, 44.0)
        );
        let check = |v: u64| {
            r.edge_checks
                .iter()
                .find(|c| c.sweep.as_ref().is_some_and(|s| s.value == v))
                .unwrap()
                .pass
        };
        assert!(check(1));
        assert!(!check(32));
        assert_eq!(r.status, Status::Wrong);
    }

    // One process is passed through untouched.
    #[test]
    fn one_process_is_its_own_record() {
        let p = process(&[7.0, 8.0], 2.0, true);
        let alone = p.record.clone();
        assert_eq!(pool(vec![p]), alone);
    }

    // Only pass and wrong runs every size; every other status ends the example.
    #[test]
    fn failures_that_end_the_example() {
        assert!(!is_final_failure(Status::Pass));
        assert!(!is_final_failure(Status::Wrong));
        assert!(is_final_failure(Status::Fault));
        assert!(is_final_failure(Status::Timeout));
        assert!(is_final_failure(Status::CompileError));
        assert!(is_final_failure(Status::LaunchError));
    }
}
