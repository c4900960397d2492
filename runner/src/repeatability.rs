//! The repeatability report: the same book measured twice back to back,
//! compared median by median. Stored as `results/repeatability.json` and
//! rendered on the methodology page.

use crate::record::Record;
use crate::size::Size;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Medians at or above this are held to the 2% agreement goal.
pub const GOAL_FLOOR_US: f64 = 20.0;
/// The agreement goal for medians of `GOAL_FLOOR_US` or more.
pub const GOAL_PCT: f64 = 2.0;

/// One size of one example in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Example id.
    pub example: String,
    /// Elements.
    pub n: Size,
    /// Median of the first run, µs.
    pub first_us: f64,
    /// Median of the second run, µs.
    pub second_us: f64,
    /// (second - first) / first, percent.
    pub diff_pct: f64,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// GPU name of the runs.
    pub gpu: String,
    /// When the second run finished (its latest record), RFC 3339.
    pub measured_at: String,
    /// Rows, by example and size.
    pub rows: Vec<Row>,
    /// Largest |diff| over medians of at least `GOAL_FLOOR_US`, percent.
    pub max_abs_diff_pct_over_floor: f64,
    /// Whether every such median agrees within `GOAL_PCT`.
    pub goal_met: bool,
}

/// Compares two folders of records (same layout as `results/`).
pub fn compare(first: &Path, second: &Path) -> anyhow::Result<Report> {
    let a = load_all(first)?;
    let b = load_all(second)?;
    let mut rows = Vec::new();
    let mut gpu = String::new();
    let mut measured_at = String::new();
    for rb in &b {
        let Some(ra) = a.iter().find(|r| r.example == rb.example) else {
            continue;
        };
        if let Some(g) = &rb.gpu {
            gpu = g.name.clone();
        }
        measured_at = measured_at.max(rb.measured_at.clone());
        for sb in &rb.sizes {
            let Some(sa) = ra.sizes.iter().find(|s| s.n == sb.n) else {
                continue;
            };
            rows.push(Row {
                example: rb.example.clone(),
                n: sb.n,
                first_us: sa.median_us,
                second_us: sb.median_us,
                diff_pct: 100.0 * (sb.median_us - sa.median_us) / sa.median_us,
            });
        }
    }
    rows.sort_by(|x, y| x.example.cmp(&y.example).then(x.n.cmp(&y.n)));
    let max = rows
        .iter()
        .filter(|r| r.first_us.min(r.second_us) >= GOAL_FLOOR_US)
        .map(|r| r.diff_pct.abs())
        .fold(0.0, f64::max);
    Ok(Report {
        gpu,
        measured_at,
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
