//! The repeatability report: the same book measured twice back to back,
//! compared median by median. Stored as `results/repeatability.json` and
//! rendered on the methodology page.
//!
//! The report names the measuring method and the key of every example it
//! compares, so a reader of the report (the preprocessor) can tell when it
//! no longer describes the book: the method changed since, or an example's
//! code did. Only repeats are compared: an example whose records in the two
//! runs have different keys (its code changed between the runs) is left
//! out, as is a record found unchanged in both (not measured again, such as
//! the leftover record of an example no longer in the book); runs whose
//! compared records disagree on the method version are refused.

use crate::record::Record;
use crate::size::Size;
use anyhow::bail;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Medians at or above this are held to the 2% agreement goal.
pub const GOAL_FLOOR_US: f64 = 20.0;
/// The agreement goal for medians of `GOAL_FLOOR_US` or more.
pub const GOAL_PCT: f64 = 2.0;

/// One size of one example in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Example id, with the value of a sweep it is of (`ID@STRIDE=4`).
    pub example: String,
    /// Elements.
    pub n: Size,
    /// Median of the first run, µs.
    #[serde(with = "crate::nonfinite")]
    pub first_us: f64,
    /// Median of the second run, µs.
    #[serde(with = "crate::nonfinite")]
    pub second_us: f64,
    /// (second - first) / first, percent.
    #[serde(with = "crate::nonfinite")]
    pub diff_pct: f64,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// GPU name of the runs.
    pub gpu: String,
    /// When the second run finished (its latest record), RFC 3339.
    pub measured_at: String,
    /// The measuring-method version ([`crate::METHOD_VERSION`]) of every
    /// compared record; 0 in reports written before reports carried it.
    #[serde(default)]
    pub method_version: u32,
    /// The key of every compared example (id to key), from the second
    /// run's records; empty in reports written before reports carried them.
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
    /// Whether both runs were on one physical GPU: `Some(true)` when every
    /// compared pair of records names the same GPU UUID, `Some(false)`
    /// when some pair names two (two GPUs, or a run spread over several),
    /// `None` when the records do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_gpu: Option<bool>,
    /// Rows, by example and size.
    pub rows: Vec<Row>,
    /// Largest |diff| over medians of at least `GOAL_FLOOR_US`, percent.
    #[serde(with = "crate::nonfinite")]
    pub max_abs_diff_pct_over_floor: f64,
    /// Whether every such median agrees within `GOAL_PCT`.
    pub goal_met: bool,
}

/// Compares two folders of records (same layout as `results/`): every
/// example measured in both runs with the same key, size by size. Fails
/// when the compared records disagree on the method version, or when no
/// example was measured in both.
pub fn compare(first: &Path, second: &Path) -> anyhow::Result<Report> {
    let a = load_all(first)?;
    let b = load_all(second)?;
    let mut rows = Vec::new();
    let mut gpu = String::new();
    let mut measured_at = String::new();
    let mut keys = BTreeMap::new();
    // Method version -> an example measured with it, for the refusal.
    let mut methods: BTreeMap<u32, String> = BTreeMap::new();
    // Per compared example: whether its two records name one GPU, if both
    // name theirs.
    let mut pairs_on_gpus: Vec<Option<bool>> = Vec::new();
    for rb in &b {
        let Some(ra) = a.iter().find(|r| r.example == rb.example) else {
            continue;
        };
        // Not a repeat: the code changed between the runs, or the record
        // was not measured again.
        if ra.key != rb.key || ra == rb {
            continue;
        }
        for r in [ra, rb] {
            methods
                .entry(r.method_version)
                .or_insert_with(|| r.example.clone());
        }
        keys.insert(rb.example.clone(), rb.key.clone());
        let uuid = |r: &Record| r.gpu.as_ref().and_then(|g| g.uuid.clone());
        pairs_on_gpus.push(uuid(ra).zip(uuid(rb)).map(|(x, y)| x == y));
        if let Some(g) = &rb.gpu {
            gpu = g.name.clone();
        }
        measured_at = measured_at.max(rb.measured_at.clone());
        for sb in &rb.sizes {
            // The same size of the same value of a sweep, if any.
            let Some(sa) = ra.sizes.iter().find(|s| s.n == sb.n && s.sweep == sb.sweep) else {
                continue;
            };
            let value = sb.sweep.as_ref().map(|v| v.suffix()).unwrap_or_default();
            rows.push(Row {
                example: format!("{}{value}", rb.example),
                n: sb.n,
                first_us: sa.median_us,
                second_us: sb.median_us,
                diff_pct: 100.0 * (sb.median_us - sa.median_us) / sa.median_us,
            });
        }
    }
    let method_version = match methods.len() {
        0 => bail!(
            "nothing to compare: no example was measured in both {} and {} with the same code",
            first.display(),
            second.display()
        ),
        1 => *methods.keys().next().expect("one method"),
        _ => bail!(
            "the runs' records disagree on the measuring method ({}): runs measured with different methods are not repeats; measure both runs with the same cuda-runner",
            methods
                .iter()
                .map(|(v, example)| format!("version {v} in {example}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    rows.sort_by(|x, y| x.example.cmp(&y.example).then(x.n.cmp(&y.n)));
    let max = rows
        .iter()
        .filter(|r| r.first_us.min(r.second_us) >= GOAL_FLOOR_US)
        .map(|r| r.diff_pct.abs())
        .fold(0.0, f64::max);
    let same_gpu = if pairs_on_gpus.contains(&Some(false)) {
        Some(false)
    } else if !pairs_on_gpus.is_empty() && pairs_on_gpus.iter().all(|p| *p == Some(true)) {
        Some(true)
    } else {
        None
    };
    Ok(Report {
        gpu,
        measured_at,
        method_version,
        keys,
        same_gpu,
        rows,
        max_abs_diff_pct_over_floor: max,
        goal_met: max <= GOAL_PCT,
    })
}

fn load_all(dir: &Path) -> anyhow::Result<Vec<Record>> {
    let mut out = Vec::new();
    walk(dir, &mut out)?;
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<Record>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path)?;
            // Other stored files (peers, this report) are not records.
            if let Ok(r) = serde_json::from_str::<Record>(&text) {
                out.push(r);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `example` with `key`, measured with `method` at
    /// `measured_at`, timed at 2^20 in `us` microseconds.
    fn record(example: &str, key: &str, method: u32, measured_at: &str, us: f64) -> Record {
        let mut r = crate::record::test_records::record(example, key);
        r.method_version = method;
        r.problem = "sum_f32 v1".into();
        r.measured_at = measured_at.into();
        r.sizes = vec![crate::record::test_records::size(
            1 << 20,
            4194308,
            us,
            true,
        )];
        r
    }

    /// Two run folders holding `first` and `second`.
    fn runs(first: &[Record], second: &[Record]) -> (tempfile::TempDir, tempfile::TempDir) {
        let write = |records: &[Record]| {
            let dir = tempfile::tempdir().unwrap();
            for r in records {
                let path = dir.path().join(format!("{}.json", r.example));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, serde_json::to_string(r).unwrap()).unwrap();
            }
            dir
        };
        (write(first), write(second))
    }

    const T1: &str = "2026-05-01T12:00:00Z";
    const T2: &str = "2026-05-01T12:05:00Z";

    // The report names the method of its records and the key of every
    // example it compares, from the second run.
    #[test]
    fn report_carries_method_and_keys() {
        let (a, b) = runs(
            &[
                record("r/a", "ka", 4, T1, 40.0),
                record("r/b", "kb", 4, T1, 30.0),
            ],
            &[
                record("r/a", "ka", 4, T2, 40.4),
                record("r/b", "kb", 4, T2, 30.0),
            ],
        );
        let report = compare(a.path(), b.path()).unwrap();
        assert_eq!(report.method_version, 4);
        assert_eq!(
            report.keys,
            BTreeMap::from([("r/a".into(), "ka".into()), ("r/b".into(), "kb".into())])
        );
        assert_eq!(report.rows.len(), 2);
        assert!((report.max_abs_diff_pct_over_floor - 1.0).abs() < 1e-9);
        assert!(report.goal_met);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["method_version"], 4);
        assert_eq!(json["keys"]["r/a"], "ka");
    }

    // The report says whether both runs were on one GPU when every
    // compared record names its GPU, and nothing when one does not.
    #[test]
    fn report_tells_whether_the_runs_shared_a_gpu() {
        let on = |r: Record, uuid: Option<&str>| {
            let mut r = r;
            r.gpu = Some(crate::record::GpuFacts {
                name: "NVIDIA H200".into(),
                uuid: uuid.map(str::to_string),
                ..Default::default()
            });
            r
        };
        let same = |u1: Option<&str>, u2: Option<&str>| {
            let (a, b) = runs(
                &[
                    on(record("r/a", "ka", 4, T1, 40.0), u1),
                    on(record("r/b", "kb", 4, T1, 30.0), Some("GPU-1")),
                ],
                &[
                    on(record("r/a", "ka", 4, T2, 40.1), u2),
                    on(record("r/b", "kb", 4, T2, 30.1), Some("GPU-1")),
                ],
            );
            compare(a.path(), b.path()).unwrap().same_gpu
        };
        assert_eq!(same(Some("GPU-1"), Some("GPU-1")), Some(true));
        assert_eq!(same(Some("GPU-1"), Some("GPU-2")), Some(false));
        assert_eq!(same(None, Some("GPU-1")), None);
    }

    // Each value of a swept example is compared with the same value of
    // the other run, never with another value at the same size, and its
    // row says which value it is.
    #[test]
    fn swept_values_are_compared_value_by_value() {
        let swept = |measured_at: &str, slow: f64| {
            let mut r = record("r/s", "ks", 4, measured_at, 40.0);
            let mut other = r.sizes[0].clone();
            other.median_us = 40.0 * slow;
            let value = |v: u64| {
                Some(crate::sweep::SweepValue {
                    name: "STRIDE".into(),
                    value: v,
                })
            };
            r.sizes[0].sweep = value(1);
            other.sweep = value(32);
            r.sizes.push(other);
            r
        };
        let (a, b) = runs(&[swept(T1, 8.0)], &[swept(T2, 8.0)]);
        let report = compare(a.path(), b.path()).unwrap();
        let rows: Vec<(&str, f64)> = report
            .rows
            .iter()
            .map(|r| (r.example.as_str(), r.diff_pct))
            .collect();
        assert_eq!(rows, [("r/s@STRIDE=1", 0.0), ("r/s@STRIDE=32", 0.0)]);
    }

    // An example whose code changed between the runs, and a record left
    // unchanged (not measured again), are not repeats: left out.
    #[test]
    fn only_repeats_are_compared() {
        let leftover = record("r/gone", "kg", 2, T1, 50.0);
        let (a, b) = runs(
            &[
                record("r/a", "ka", 4, T1, 40.0),
                record("r/b", "old", 4, T1, 30.0),
                leftover.clone(),
            ],
            &[
                record("r/a", "ka", 4, T2, 40.0),
                record("r/b", "new", 4, T2, 60.0),
                leftover,
            ],
        );
        let report = compare(a.path(), b.path()).unwrap();
        assert_eq!(report.keys.keys().collect::<Vec<_>>(), ["r/a"]);
        assert!(report.rows.iter().all(|r| r.example == "r/a"));
        assert_eq!(report.method_version, 4);
    }

    // Runs measured with different methods are refused, naming both; so is
    // a comparison with nothing in common.
    #[test]
    fn refuses_mixed_methods_and_empty_comparisons() {
        let (a, b) = runs(
            &[record("r/a", "ka", 3, T1, 40.0)],
            &[record("r/a", "ka", 4, T2, 40.0)],
        );
        let err = compare(a.path(), b.path()).unwrap_err().to_string();
        assert!(
            err.contains("disagree on the measuring method (version 3 in r/a, version 4 in r/a)"),
            "{err}"
        );
        let (a, b) = runs(&[record("r/a", "ka", 4, T1, 40.0)], &[]);
        let err = compare(a.path(), b.path()).unwrap_err().to_string();
        assert!(err.starts_with("nothing to compare"), "{err}");
    }

    // A report written before reports carried method and keys still reads.
    #[test]
    fn older_reports_read() {
        let report: Report = serde_json::from_str(
            r#"{"gpu": "G", "measured_at": "2026-05-01T00:00:00Z", "rows": [],
                "max_abs_diff_pct_over_floor": 0.5, "goal_met": true}"#,
        )
        .unwrap();
        assert_eq!(report.method_version, 0);
        assert!(report.keys.is_empty());
    }
}
