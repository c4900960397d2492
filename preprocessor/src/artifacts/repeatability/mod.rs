//! `{{#repeatability}}`: two back-to-back measuring runs of the book
//! compared, read from the report a GPU session stores in
//! `results/repeatability.json` (`bench/gpu-session.sh OUTDIR book2`).
//!
//! A report is current while it was measured with the runner's method and
//! every example it compares still has the key it had; one stale only
//! because those examples wait to be measured waits, in an author's build,
//! for the GPU machine.

use super::{Kind, StoredFile};
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{REMEASURE, StoredError, StoredReports, stale_problem};
use cuda_measured_core::repeatability::Report;

mod render;
pub use render::{html, markdown};

/// The report's file under the store.
pub const RELATIVE_PATH: &str = "repeatability.json";

/// The repeatability report, or why there is none.
pub fn read(stored: &StoredReports) -> Result<Report, StoredError> {
    stored.load(RELATIVE_PATH, "not measured", REMEASURE)
}

/// Evaluates `{{#repeatability}}`: the stored report and whether it is
/// current, or why there is none.
pub fn evaluate(results: &Results<'_>) -> Result<Repeatability, Shown> {
    let report = read(results.stored()).map_err(|e| Shown::Unmeasured(e.to_string()))?;
    let stale = staleness(&report, results);
    Ok(Repeatability {
        report,
        file: results.stored().shown(RELATIVE_PATH),
        stale,
    })
}

impl Repeatability {
    /// Why it fails a strict build: it is not current.
    pub fn problem(&self) -> Option<String> {
        stale_problem(&self.file, self.stale.as_deref())
    }
}

/// Whether the report is stale only because examples it compares changed
/// and now wait to be measured (the method unchanged): the author's
/// pre-GPU build accepts that.
pub fn awaits(results: &Results<'_>) -> bool {
    let waits = |id: &str| {
        results
            .current(id)
            .is_some_and(|(_, outcome)| outcome.state().awaits_measuring())
    };
    read(results.stored()).is_ok_and(|report| {
        report.method_version == cuda_measured_core::METHOD_VERSION
            && report
                .keys
                .iter()
                .all(|(id, key)| match results.current(id) {
                    Some((now, _)) if now == key => true,
                    Some(_) => waits(id),
                    None => false,
                })
    })
}

/// The file `{{#repeatability}}` reads, for the status page: made when
/// and with which method.
pub fn stored_file(stored: &StoredReports) -> StoredFile {
    StoredFile {
        kind: Kind::Repeatability,
        rel: RELATIVE_PATH.to_string(),
        made: read(stored).ok().map(|r| {
            (
                r.measured_at,
                format!("cuda-runner, method v{}", r.method_version),
            )
        }),
    }
}

/// A `{{#repeatability}}` report.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeatability {
    /// The stored report.
    pub report: Report,
    /// Its file as shown in messages (`results/repeatability.json`).
    pub file: String,
    /// Why it no longer describes the book (`the measuring method changed
    /// from v4 to v5 since it was measured`), or `None` when current.
    pub stale: Option<String>,
}

/// Why a stored repeatability report no longer describes the book: it was
/// measured with another method than the runner's now, or the code of an
/// example it compares changed since (another key), or the example is gone
/// from the book. A report written before reports carried their method and
/// keys is stale for that alone.
fn staleness(report: &Report, results: &Results<'_>) -> Option<String> {
    let now = cuda_measured_core::METHOD_VERSION;
    let mut reasons = Vec::new();
    match report.method_version {
        v if v == now => {}
        0 => reasons.push(format!(
            "written before reports recorded the measuring method (now v{now}) and the keys of the examples"
        )),
        v => reasons.push(format!(
            "the measuring method changed from v{v} to v{now} since it was measured"
        )),
    }
    let ids: std::collections::BTreeSet<&str> = report
        .keys
        .keys()
        .map(String::as_str)
        // A row of a swept example is named by its value (`ID@NAME=VALUE`);
        // its example is the id before the value.
        .chain(
            report
                .rows
                .iter()
                .map(|r| crate::example_ref::id_of(&r.example)),
        )
        .collect();
    let (mut changed, mut gone) = (Vec::new(), Vec::new());
    for id in ids {
        match (results.current(id), report.keys.get(id)) {
            (None, _) => gone.push(id),
            // No key stored: only in reports written before keys, said above.
            (Some(_), None) if report.method_version == 0 => {}
            (Some((key, _)), stored) if stored.map(String::as_str) != Some(key) => {
                changed.push(id);
            }
            (Some(_), _) => {}
        }
    }
    if !changed.is_empty() {
        reasons.push(format!(
            "the code of {} changed since it was measured",
            changed.join(", ")
        ));
    }
    if !gone.is_empty() {
        reasons.push(format!(
            "{} {} no longer a runnable example of this book",
            gone.join(", "),
            if gone.len() == 1 { "is" } else { "are" }
        ));
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

#[cfg(test)]
mod tests;
