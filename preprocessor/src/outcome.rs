//! What the book knows about one example's result, its [`State`] as the
//! book's status lists it (`mdbook-cuda status` and the `{{#status}}`
//! page), and whether that is a problem for a strict build (with the
//! reason a reader of the build log needs to fix it).

use cuda_measured_core::declaration::Expectation;
use cuda_measured_core::example::Example;
use cuda_measured_core::record::{Record, Status};
use cuda_measured_core::store::Lookup;

/// The state of an example after the store was read and, where the mode
/// allowed, the example was measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A record for the current code (stored, or measured in this build).
    Fresh(Record),
    /// A record for the current code, measured in this build but not
    /// written to the store: the page shows it, the next build measures the
    /// example again, and a strict build fails on it.
    Unstored {
        /// The record measured.
        record: Record,
        /// Why it could not be stored: the file and the error
        /// (`results/r/a.json: Is a directory (os error 21)`).
        reason: String,
    },
    /// A record for an earlier version of the code.
    Stale(Record),
    /// No record.
    Missing,
    /// The example could not be resolved: the message names file, line and fix.
    Broken(String),
}

impl From<Lookup> for Outcome {
    fn from(lookup: Lookup) -> Self {
        match lookup {
            Lookup::Fresh(r) => Outcome::Fresh(r),
            Lookup::Stale(r) => Outcome::Stale(r),
            Lookup::Missing => Outcome::Missing,
        }
    }
}

/// An example's state, as `mdbook-cuda status` and the `{{#status}}` page
/// list it: one classification, shared by both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// A record for the current code that passes, as declared.
    Current,
    /// A record for the current code that fails the way it declares.
    ExpectedFailure,
    /// A record for the current code that is not what the example
    /// declares: a failure it does not declare, or a pass where it
    /// declares a failure.
    Failed,
    /// Measured in this build, but the record could not be written.
    NotStored,
    /// A record for an earlier version of the code (or of the method).
    Stale,
    /// No record.
    NotMeasured,
    /// The example cannot be resolved (a message names file, line and fix).
    Broken,
}

impl State {
    /// Every state, in the order summaries count them.
    pub const ALL: [State; 7] = [
        State::Current,
        State::ExpectedFailure,
        State::Failed,
        State::NotStored,
        State::Stale,
        State::NotMeasured,
        State::Broken,
    ];

    /// The state in words: `current`, `not measured`.
    pub fn word(self) -> &'static str {
        match self {
            State::Current => "current",
            State::ExpectedFailure => "current (expected failure)",
            State::Failed => "failed",
            State::NotStored => "not stored",
            State::Stale => "stale",
            State::NotMeasured => "not measured",
            State::Broken => "broken",
        }
    }

    /// A word for CSS classes and data attributes: `current`, `not-measured`.
    pub fn slug(self) -> &'static str {
        match self {
            State::Current => "current",
            State::ExpectedFailure => "expected-failure",
            State::Failed => "failed",
            State::NotStored => "not-stored",
            State::Stale => "stale",
            State::NotMeasured => "not-measured",
            State::Broken => "broken",
        }
    }

    /// Whether the example only waits to be measured on a GPU (no record
    /// for its current code): what an author build accepts.
    pub fn awaits_measuring(self) -> bool {
        matches!(self, State::Stale | State::NotMeasured)
    }
}

impl Outcome {
    /// The example's state.
    pub fn state(&self) -> State {
        match self {
            Outcome::Fresh(r) if !r.as_expected() => State::Failed,
            Outcome::Fresh(r) if r.status != Status::Pass => State::ExpectedFailure,
            Outcome::Fresh(_) => State::Current,
            Outcome::Unstored { .. } => State::NotStored,
            Outcome::Stale(_) => State::Stale,
            Outcome::Missing => State::NotMeasured,
            Outcome::Broken(_) => State::Broken,
        }
    }

    /// The record for the current code, if any.
    pub fn fresh(&self) -> Option<&Record> {
        match self {
            Outcome::Fresh(r) | Outcome::Unstored { record: r, .. } => Some(r),
            _ => None,
        }
    }

    /// Whether this example would be measured in `auto` mode.
    pub fn needs_measuring(&self) -> bool {
        matches!(self, Outcome::Stale(_) | Outcome::Missing)
    }

    /// Why a strict build must fail on this example, or `None` when its
    /// stored result is current and what the example declared. `example`
    /// is the resolved example (absent for broken ones), `results_file` the
    /// record's path as shown to the reader.
    pub fn problem(&self, example: Option<&Example>, results_file: &str) -> Option<String> {
        let origin = example.map_or_else(String::new, |e| e.origin.file.clone());
        match self {
            Outcome::Fresh(r) => record_problem(r),
            Outcome::Unstored { record, reason } => {
                let unstored = unstored_problem(reason, results_file);
                Some(match record_problem(record) {
                    Some(own) => format!("{own}; and {unstored}"),
                    None => unstored,
                })
            }
            Outcome::Stale(r) if r.method_version != cuda_measured_core::METHOD_VERSION => {
                Some(format!(
                    "stale: the measuring method changed (version {} to {}) since it was measured; run `scripts/book` on a GPU machine",
                    r.method_version,
                    cuda_measured_core::METHOD_VERSION
                ))
            }
            Outcome::Stale(_) => Some(format!(
                "stale: {origin} changed since it was measured; run `scripts/book` on a GPU machine"
            )),
            Outcome::Missing => Some(format!(
                "not measured: {results_file} does not exist; run `scripts/book` on a GPU machine"
            )),
            Outcome::Broken(message) => Some(message.clone()),
        }
    }
}

/// Why a current record fails a strict build: it is not what its example
/// declared.
fn record_problem(r: &Record) -> Option<String> {
    if r.as_expected() {
        None
    } else if r.status == Status::Pass {
        Some(format!(
            "passes, but it declares expect = \"{}\": drop the expect line if the bug is fixed",
            expectation_word(r.expect)
        ))
    } else {
        Some(format!(
            "{}{}: fix the kernel, or declare expect = \"{}\" in its header if the failure is the point",
            status_words(r.status),
            if r.message.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.message)
            },
            r.status.word()
        ))
    }
}

/// Why a record measured but not stored fails a strict build: its figures
/// exist only on this build's pages.
fn unstored_problem(reason: &str, results_file: &str) -> String {
    format!(
        "measured but NOT stored ({reason}): this build's pages show figures that no file holds; make sure {results_file} can be written and build again"
    )
}

/// A status as words: `compile error`.
pub fn status_words(status: Status) -> String {
    status.word().replace('-', " ")
}

/// An expectation as written in a header: `compile-error`.
pub fn expectation_word(expect: Expectation) -> String {
    serde_json::to_value(expect)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{expect:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::record;

    // Each state that a strict build refuses gives a reason with the fix;
    // current results that match their declaration are not problems.
    #[test]
    fn strict_classification() {
        let pass = record(Status::Pass, Expectation::Pass);
        let wrong_expected = record(Status::Wrong, Expectation::Wrong);
        let wrong = record(Status::Wrong, Expectation::Pass);
        let fixed = record(Status::Pass, Expectation::Wrong);
        let mut old_method = pass.clone();
        old_method.method_version = 0;
        let cases: Vec<(Outcome, Option<&str>)> = vec![
            (Outcome::Fresh(pass.clone()), None),
            (Outcome::Fresh(wrong_expected), None),
            (
                Outcome::Fresh(wrong),
                Some("wrong (sum off by 12.5): fix the kernel, or declare expect = \"wrong\""),
            ),
            (
                Outcome::Fresh(fixed),
                Some("passes, but it declares expect = \"wrong\""),
            ),
            (
                Outcome::Stale(pass),
                Some("stale: kernels/r/tree.cu changed since it was measured"),
            ),
            (
                Outcome::Stale(old_method),
                Some("the measuring method changed"),
            ),
            (
                Outcome::Missing,
                Some("not measured: results/r/tree.json does not exist"),
            ),
            (
                Outcome::Unstored {
                    record: record(Status::Pass, Expectation::Pass),
                    reason: "results/r/tree.json: Is a directory (os error 21)".into(),
                },
                Some(
                    "measured but NOT stored (results/r/tree.json: Is a directory (os error 21)): this build's pages show figures that no file holds; make sure results/r/tree.json can be written",
                ),
            ),
            (
                Outcome::Unstored {
                    record: record(Status::Wrong, Expectation::Pass),
                    reason: "results/r/tree.json: No space left on device (os error 28)".into(),
                },
                Some(
                    "fix the kernel, or declare expect = \"wrong\" in its header if the failure is the point; and measured but NOT stored (results/r/tree.json: No space",
                ),
            ),
            (
                Outcome::Broken("src/a.md:3: bad".into()),
                Some("src/a.md:3: bad"),
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels/r");
        std::fs::create_dir_all(&kernels).unwrap();
        std::fs::write(kernels.join("tree.cu"), crate::test_support::KERNEL).unwrap();
        let example = Example::from_file(
            dir.path(),
            &dir.path().join("kernels"),
            "r/tree.cu",
            None,
            None,
        )
        .unwrap();
        for (outcome, want) in cases {
            let got = outcome.problem(Some(&example), "results/r/tree.json");
            match want {
                None => assert_eq!(got, None, "{outcome:?}"),
                Some(w) => assert!(
                    got.as_deref().unwrap_or("").contains(w),
                    "{got:?} lacks {w}"
                ),
            }
        }
    }

    // One classification for the status listing and the status page:
    // each outcome has its state, and only stale and missing examples
    // await measuring (what an author build accepts).
    #[test]
    fn states() {
        let cases = [
            (
                Outcome::Fresh(record(Status::Pass, Expectation::Pass)),
                State::Current,
                "current",
            ),
            (
                Outcome::Fresh(record(Status::Wrong, Expectation::Wrong)),
                State::ExpectedFailure,
                "current (expected failure)",
            ),
            (
                Outcome::Fresh(record(Status::Fault, Expectation::Pass)),
                State::Failed,
                "failed",
            ),
            (
                Outcome::Fresh(record(Status::Pass, Expectation::Wrong)),
                State::Failed,
                "failed",
            ),
            (
                Outcome::Unstored {
                    record: record(Status::Pass, Expectation::Pass),
                    reason: "disk full".into(),
                },
                State::NotStored,
                "not stored",
            ),
            (
                Outcome::Stale(record(Status::Pass, Expectation::Pass)),
                State::Stale,
                "stale",
            ),
            (Outcome::Missing, State::NotMeasured, "not measured"),
            (Outcome::Broken("x".into()), State::Broken, "broken"),
        ];
        for (outcome, state, word) in cases {
            assert_eq!(outcome.state(), state, "{outcome:?}");
            assert_eq!(state.word(), word);
            assert_eq!(
                state.awaits_measuring(),
                matches!(outcome, Outcome::Stale(_) | Outcome::Missing),
                "{outcome:?}"
            );
        }
    }

    // Only stale and missing results are re-measured in auto mode.
    #[test]
    fn what_auto_mode_measures() {
        let pass = record(Status::Pass, Expectation::Pass);
        assert!(!Outcome::Fresh(pass.clone()).needs_measuring());
        assert!(Outcome::Stale(pass).needs_measuring());
        assert!(Outcome::Missing.needs_measuring());
        assert!(!Outcome::Broken(String::new()).needs_measuring());
    }
}
