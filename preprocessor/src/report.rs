//! The build's problems: examples and figures that are not current and as
//! declared, and blocks or directives that cannot be read. Printed on
//! stderr with file, line and fix; they fail the build under `strict`
//! (all of them) or `on-failure = "bail"` (the malformed ones).

use crate::config::OnFailure;
use std::fmt::Write as _;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// A block or directive that cannot be read: always reported.
    Malformed,
    /// Data that is stale, missing or not as declared: fails strict builds.
    Unmeasured,
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

    /// Whether the build must fail.
    pub fn fails(&self, strict: bool, on_failure: OnFailure) -> bool {
        if strict {
            return !self.problems.is_empty();
        }
        on_failure == OnFailure::Bail && self.count(Severity::Malformed) > 0
    }

    /// The text for stderr: malformed examples always, the rest listed
    /// under `strict` and counted otherwise.
    pub fn describe(&self, strict: bool) -> String {
        let mut out = String::new();
        for p in &self.problems {
            if strict || p.severity == Severity::Malformed {
                let _ = writeln!(out, "[cuda] {p}");
            }
        }
        let unmeasured = self.count(Severity::Unmeasured);
        if !strict && unmeasured > 0 {
            let _ = writeln!(
                out,
                "[cuda] {unmeasured} example(s) or figure(s) are stale, not measured or not as declared; `mdbook-cuda status` lists them, and CUDA_MEASURED_STRICT=1 makes the build fail on them"
            );
        }
        out
    }

    /// The error a failing build ends with.
    pub fn failure_summary(&self, strict: bool) -> String {
        let malformed = self.count(Severity::Malformed);
        if strict {
            format!(
                "strict build: {} problem(s), listed above ({malformed} malformed); fix them or build without strict",
                self.problems.len()
            )
        } else {
            format!(
                "on-failure = \"bail\": {malformed} malformed example(s) or directive(s), listed above"
            )
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
            Severity::Unmeasured,
            "src/b.md:9",
            "r/tree",
            "stale: kernels/r/tree.cu changed since it was measured",
        );
        r
    }

    // Strict fails on anything; bail only on malformed; continue never.
    #[test]
    fn when_the_build_fails() {
        let both = report();
        let mut only_stale = both.clone();
        only_stale.problems.remove(0);
        let cases = [
            (&both, true, OnFailure::Continue, true),
            (&both, false, OnFailure::Continue, false),
            (&both, false, OnFailure::Bail, true),
            (&only_stale, false, OnFailure::Bail, false),
            (&only_stale, true, OnFailure::Continue, true),
            (&Report::default(), true, OnFailure::Bail, false),
        ];
        for (report, strict, on_failure, fails) in cases {
            assert_eq!(
                report.fails(strict, on_failure),
                fails,
                "{strict} {on_failure:?} {report:?}"
            );
        }
    }

    // Each listed line names file, line, subject and reason once.
    #[test]
    fn lines_name_place_and_reason() {
        let text = report().describe(true);
        assert_eq!(
            text,
            "[cuda] src/a.md:3: an inline example needs an id\n[cuda] src/b.md:9: r/tree: stale: kernels/r/tree.cu changed since it was measured\n"
        );
        let lenient = report().describe(false);
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
