//! An exercise stage's gates judged for the reader's kernel by the book's
//! own gate code (mdbook-cuda's `exercise_gates::judge`), against the
//! book's stored results with the reader's record in place of the
//! starter's. Gates that read a stored artifact of the kernel itself (a
//! Nsight Compute profile, a SASS listing) would judge the book's starter,
//! not the reader's code: they are reported as not judged, as is every
//! gate on a compile-only instance.

use super::api::GateResult;
use super::catalog::Book;
use cuda_measured_core::exercise::{GateKind, Stage};
use cuda_runner::record::Record;
use mdbook_cuda::exercise_gates::{self, Judged};
use mdbook_cuda::outcome::Outcome;
use mdbook_cuda::results::Results;

/// The gates of `stage` for the reader's `record` of the starter
/// `starter_id` (`None`: nothing was measured); `measured` says whether
/// this instance measures at all.
pub fn judge(
    book: &Book,
    stage: &Stage,
    starter_id: &str,
    record: Option<&Record>,
    measured: bool,
) -> Vec<GateResult> {
    let mut outcomes = book.outcomes.clone();
    let starter = book.catalog.by_id(starter_id);
    if let (Some(record), Some(index)) = (record, starter) {
        outcomes[index] = Outcome::Fresh(record.clone());
    }
    let results = Results::new(&book.catalog, &outcomes, &book.stored);
    stage
        .gates
        .iter()
        .map(|gate| {
            let name = exercise_gates::needs(&gate.kind, stage, &results);
            let not_judged = |why: &str| GateResult {
                gate: name.clone(),
                passed: None,
                detail: format!("not judged: {why}"),
            };
            if !measured {
                return not_judged("this service compiles only (no GPU)");
            }
            if record.is_none() || starter.is_none() {
                return not_judged("nothing was measured");
            }
            match &gate.kind {
                GateKind::Profile { .. } | GateKind::ProfileRatio { .. } => {
                    return not_judged(
                        "a profile gate needs Nsight Compute on the reader's kernel, which this service does not run yet",
                    );
                }
                GateKind::Sass { .. } => {
                    return not_judged("a SASS gate reads the book's stored listing, not the reader's code");
                }
                _ => {}
            }
            match exercise_gates::judge(&gate.kind, starter_id, stage, &results) {
                Judged::Passed(figure, source) => GateResult {
                    gate: name,
                    passed: Some(true),
                    detail: format!("{figure} ({source})"),
                },
                Judged::Failed(figure, source) => GateResult {
                    gate: name,
                    passed: Some(false),
                    detail: format!("{figure} ({source})"),
                },
                Judged::NotMeasured(why) => not_judged(&why.reason),
            }
        })
        .collect()
}
