//! An exercise stage's gates judged for the reader's kernel by the book's
//! own gate code (mdbook-cuda's `exercise_gates::judge`), against the
//! book's stored results with the reader's record in place of the
//! solution's (the reader writes the stage's solution, starting from its
//! starter; baselines such as the starter stay the book's), and, for
//! profile gates, the reader's Nsight Compute profile in the solution's
//! place ([`super::profile`]). A SASS gate reads the
//! book's stored listing of the starter, not the reader's code: it is
//! reported as not judged, as is every gate on a compile-only instance.

use super::api::GateResult;
use super::catalog::Book;
use super::profile::Overlay;
use cuda_measured_core::exercise::{GateKind, Stage};
use cuda_runner::record::Record;
use mdbook_cuda::exercise_gates::{self, Judged};
use mdbook_cuda::outcome::Outcome;
use mdbook_cuda::results::Results;

/// Whether a gate of `stage` reads a profile counter.
pub fn needs_profile(stage: &Stage) -> bool {
    stage.gates.iter().any(|g| {
        matches!(
            g.kind,
            GateKind::Profile { .. } | GateKind::ProfileRatio { .. }
        )
    })
}

/// The gates of `stage` for the reader's `record` (`None`: nothing was
/// measured) of the stage's starter, judged in the solution's place, and,
/// for profile gates, their profile (or why there is none); `measured`
/// says whether this instance measures at all.
pub fn judge(
    book: &Book,
    stage: &Stage,
    record: Option<&Record>,
    profile: Option<&Result<Overlay, String>>,
    measured: bool,
) -> Vec<GateResult> {
    // The reader's kernel is judged where the stage's solution is (its
    // baselines, the starter among them, stay the book's).
    let judged_id = stage.solution.id();
    let mut outcomes = book.outcomes.clone();
    let solution = book.catalog.by_id(judged_id);
    if let (Some(record), Some(index)) = (record, solution) {
        let mut record = record.clone();
        record.example = judged_id.to_string();
        outcomes[index] = Outcome::Fresh(record);
    }
    let results = Results::new(&book.catalog, &outcomes, &book.stored);
    let overlay = match profile {
        Some(Ok(overlay)) => Some(overlay.stored(book)),
        _ => None,
    };
    let profiled = overlay
        .as_ref()
        .map(|stored| Results::new(&book.catalog, &outcomes, stored));
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
            if record.is_none() || solution.is_none() {
                return not_judged("nothing was measured");
            }
            let judged_on = match &gate.kind {
                GateKind::Profile { .. } | GateKind::ProfileRatio { .. } => {
                    match (&profiled, profile) {
                        (Some(profiled), _) => profiled,
                        (None, Some(Err(why))) => return not_judged(why),
                        (None, _) => {
                            return not_judged("the kernel was not profiled (it did not pass)");
                        }
                    }
                }
                GateKind::Sass { .. } => {
                    return not_judged(
                        "a SASS gate reads the book's stored listing, not the reader's code",
                    );
                }
                _ => &results,
            };
            match exercise_gates::judge(&gate.kind, judged_id, stage, judged_on) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use cuda_runner::record::Status;
    use mdbook_cuda::exercise_gates::Judged;

    /// The repository's book.
    fn book() -> Book {
        Book::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap()
    }

    fn passed(j: &Judged) -> Option<bool> {
        match j {
            Judged::Passed(..) => Some(true),
            Judged::Failed(..) => Some(false),
            Judged::NotMeasured(_) => None,
        }
    }

    // A reader's record equal to the stored solution's is judged as the
    // book judges the solution, gate by gate (profile gates on a profile
    // equal to the solution's stored one); a wrong one fails the
    // correctness gate; without a GPU nothing is judged.
    #[test]
    fn the_readers_kernel_is_judged_in_the_solutions_place() {
        let book = book();
        let plain = Results::new(&book.catalog, &book.outcomes, &book.stored);
        let (mut compared, mut profiled) = (0, 0);
        for name in ["reduction/stage2", "reduction/stage4"] {
            let stage = book.stages[name].stage.clone().unwrap();
            let id = stage.solution.id();
            let Ok(record) = plain.record(id) else {
                continue;
            };
            let record = record.clone();
            let size = stage.size;
            let overlay = mdbook_cuda::artifacts::profile::read(&book.stored, id, size)
                .map_err(|e| e.to_string())
                .and_then(|p| {
                    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
                    super::super::profile::overlay(&book, dir, &stage, p, size)
                });
            let gates = judge(&book, &stage, Some(&record), Some(&overlay), true);
            assert_eq!(gates.len(), stage.gates.len());
            for (gate, got) in stage.gates.iter().zip(&gates) {
                if matches!(gate.kind, GateKind::Sass { .. }) {
                    assert_eq!(got.passed, None);
                    continue;
                }
                let want = passed(&exercise_gates::judge(&gate.kind, id, &stage, &plain));
                assert_eq!(got.passed, want, "{name}: {got:?}");
                compared += 1;
                if matches!(gate.kind, GateKind::ProfileRatio { .. }) && want.is_some() {
                    profiled += 1;
                }
            }
            let mut wrong = record.clone();
            wrong.status = Status::Wrong;
            let gates = judge(&book, &stage, Some(&wrong), None, true);
            assert_eq!(gates[0].passed, Some(false), "{:?}", gates[0]);
            let unjudged = judge(&book, &stage, Some(&record), None, false);
            assert!(unjudged.iter().all(|g| g.passed.is_none()));
        }
        assert!(compared > 0, "no stored solution to compare with");
        assert!(profiled > 0, "no profile gate judged on the overlay");
    }
}
