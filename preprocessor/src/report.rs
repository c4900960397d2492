//! The build's problems: examples and figures that are not current and as
//! declared, and blocks or directives that cannot be read. Printed on
//! stderr with file, line and fix; they fail the build under `strict`
//! (all of them), `strict = "author"` (all but examples and figures that
//! only wait to be measured) or `on-failure = "bail"` (the malformed ones).

use crate::config::{OnFailure, Strict};
use std::fmt::Write as _;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// A block or directive that cannot be read: always reported.
    Malformed,
    /// Data that is not current and as declared for another reason than
    /// waiting to be measured (a failure not declared, a record not
    /// stored, a stale report, a figure of an unknown example or size):
    /// fails strict and author builds.
    Unmeasured,
    /// An example with no record for its current code (missing or stale),
    /// or a figure that waits only on such examples: measuring on a GPU
    /// settles it. Fails strict builds, not author builds.
    Pending,
}

/// One problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// How bad.
    pub severity: Severity,
    /// `src/chapter.md:12`.
    pub place: String,
    /// The example id or directive it concerns.
    pub subject: String,
    /// What is wrong and how to fix it.
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Messages of unreadable examples already name their chapter file
        // (with the line of the fence, or of the line at fault).
        let file = self
            .place
            .rsplit_once(':')
            .map_or(self.place.as_str(), |(file, _)| file);
        if self.reason.starts_with(&format!("{file}:")) {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}: {}", self.place, self.subject, self.reason)
        }
    }
}

/// All problems of a build, in reading order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The problems.
    pub problems: Vec<Problem>,
}

impl Report {
    /// Adds a problem.
    pub fn push(
        &mut self,
        severity: Severity,
        place: impl Into<String>,
        subject: impl Into<String>,
        reason: impl Into<String>,
    ) {
        self.problems.push(Problem {
            severity,
            place: place.into(),
            subject: subject.into(),
            reason: reason.into(),
        });
    }

    fn count(&self, severity: Severity) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == severity)
            .count()
    }

    /// Whether `strict` refuses a problem of this severity.
    fn refused(strict: Strict, severity: Severity) -> bool {
        match strict {
            Strict::Off => false,
            Strict::On => true,
            Strict::Author => severity != Severity::Pending,
        }
    }

    /// Whether the build must fail.
    pub fn fails(&self, strict: Strict, on_failure: OnFailure) -> bool {
        self.problems
            .iter()
            .any(|p| Self::refused(strict, p.severity))
            || on_failure == OnFailure::Bail && self.count(Severity::Malformed) > 0
    }

    /// The text for stderr: malformed examples and what `strict` refuses
    /// are listed, the rest counted.
    pub fn describe(&self, strict: Strict) -> String {
        let mut out = String::new();
        for p in &self.problems {
            if Self::refused(strict, p.severity) || p.severity == Severity::Malformed {
                let _ = writeln!(out, "[cuda] {p}");
            }
        }
        match strict {
            Strict::On => {}
            Strict::Author => {
                let pending = self.count(Severity::Pending);
                if pending > 0 {
                    let _ = writeln!(
                        out,
                        "[cuda] {pending} example(s) or figure(s) wait to be measured on a GPU, which the author's check accepts; `mdbook-cuda status` lists them, and `scripts/book` on a GPU machine measures them"
                    );
                }
            }
            Strict::Off => {
                let unmeasured = self.count(Severity::Unmeasured) + self.count(Severity::Pending);
                if unmeasured > 0 {
                    let _ = writeln!(
                        out,
                        "[cuda] {unmeasured} example(s) or figure(s) are stale, not measured or not as declared; `mdbook-cuda status` lists them, and CUDA_MEASURED_STRICT=1 makes the build fail on them"
                    );
                }
            }
        }
        out
    }

    /// The error a failing build ends with.
    pub fn failure_summary(&self, strict: Strict) -> String {
        let malformed = self.count(Severity::Malformed);
        match strict {
            Strict::On => format!(
                "strict build: {} problem(s), listed above ({malformed} malformed); fix them or build without strict",
                self.problems.len()
            ),
            Strict::Author => format!(
                "author build: {} problem(s), listed above ({malformed} malformed); examples that only wait to be measured are accepted, these are not",
                self.problems
                    .iter()
                    .filter(|p| p.severity != Severity::Pending)
                    .count()
            ),
            Strict::Off => format!(
                "on-failure = \"bail\": {malformed} malformed example(s) or directive(s), listed above"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let mut r = Report::default();
        r.push(
            Severity::Malformed,
            "src/a.md:3",
            "?",
            "src/a.md:3: an inline example needs an id",
        );
        r.push(
            Severity::Pending,
            "src/b.md:9",
            "r/tree",
            "stale: kernels/r/tree.cu changed since it was measured",
        );
        r
    }

    // Strict fails on anything; author on all but what waits to be
    // measured; bail only on malformed; continue never.
    #[test]
    fn when_the_build_fails() {
        let both = report();
        let mut only_stale = both.clone();
        only_stale.problems.remove(0);
        let mut failed = only_stale.clone();
        failed.push(
            Severity::Unmeasured,
            "src/b.md:20",
            "r/wrong",
            "wrong (sum off by 12.5): fix the kernel",
        );
        let (on, off, author) = (Strict::On, Strict::Off, Strict::Author);
        let cases = [
            (&both, on, OnFailure::Continue, true),
            (&both, off, OnFailure::Continue, false),
            (&both, off, OnFailure::Bail, true),
            (&both, author, OnFailure::Continue, true),
            (&only_stale, off, OnFailure::Bail, false),
            (&only_stale, on, OnFailure::Continue, true),
            (&only_stale, author, OnFailure::Continue, false),
            (&failed, author, OnFailure::Continue, true),
            (&Report::default(), on, OnFailure::Bail, false),
        ];
        for (report, strict, on_failure, fails) in cases {
            assert_eq!(
                report.fails(strict, on_failure),
                fails,
                "{strict:?} {on_failure:?} {report:?}"
            );
        }
    }

    // Each listed line names file, line, subject and reason once.
    #[test]
    fn lines_name_place_and_reason() {
        let text = report().describe(Strict::On);
        assert_eq!(
            text,
            "[cuda] src/a.md:3: an inline example needs an id\n[cuda] src/b.md:9: r/tree: stale: kernels/r/tree.cu changed since it was measured\n"
        );
        let author = report().describe(Strict::Author);
        assert!(
            author.starts_with("[cuda] src/a.md:3: an inline example needs an id\n[cuda] 1 example(s) or figure(s) wait to be measured on a GPU"),
            "{author}"
        );
        assert!(
            report()
                .failure_summary(Strict::Author)
                .starts_with("author build: 1 problem(s), listed above (1 malformed)")
        );
        let lenient = report().describe(Strict::Off);
        assert!(
            lenient.starts_with("[cuda] src/a.md:3: an inline"),
            "{lenient}"
        );
        assert!(
            lenient.contains("1 example(s) or figure(s) are stale"),
            "{lenient}"
        );
    }
}
