//! `{{#sanitizer ID CHECK SIZE}}`: what NVIDIA's compute-sanitizer found
//! in one run of an example at one size, read from the report
//! `cuda-runner sanitize` stores in `results/sanitizer/<id>/<check>-<n>.json`
//! (on a GPU machine: `bench/gpu-session.sh OUTDIR sanitize`), with the
//! line of code behind each place a finding names, read from the
//! example's files as they are now.
//!
//! A report is current while its key is the example's key. A missing or
//! stale one is a problem for strict builds and waits, in an author's
//! build, for the GPU machine; an id the book does not have, a size the
//! example does not declare, or an example the GPU session cannot run (it
//! runs `kernels/ID.cu`) is a mistake in the directive, reported at its
//! line.

use super::{Kind, StoredFile};
use crate::directive_syntax::usage as form_usage;
use crate::figures;
use crate::names::{not_a_kernel_file, undeclared_size};
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{StoredError, StoredReports};
use cuda_measured_core::dims::Dims;
use cuda_measured_core::example::Example;
use cuda_measured_core::sanitizer::{self, Finding, Report};
use cuda_measured_core::sass_counts;

mod render;
pub use render::{html, markdown};

/// How to run compute-sanitizer again.
pub const RESANITIZE: &str =
    "run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine and commit results/sanitizer/";

/// Why `{{#sanitizer}}`'s CHECK is not one of compute-sanitizer's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", cuda_measured_core::suggest::message(
    &format!("`{word}` is not a compute-sanitizer check"),
    word,
    sanitizer::CHECKS.iter().copied(),
    &format!("use {}", sanitizer::CHECKS.join(", ")),
))]
pub struct ArgsError {
    /// The word written.
    pub word: String,
}

/// `{{#sanitizer}}`'s CHECK: one of `cuda_measured_core::sanitizer::CHECKS`.
pub fn parse_check(word: &str) -> Result<String, ArgsError> {
    if sanitizer::CHECKS.contains(&word) {
        Ok(word.to_string())
    } else {
        Err(ArgsError {
            word: word.to_string(),
        })
    }
}

/// How to write `{{#sanitizer}}`, for a directive misused.
pub fn usage() -> String {
    form_usage(
        "sanitizer ID CHECK SIZE",
        "CHECK is racecheck, memcheck, synccheck or initcheck, e.g. {{#sanitizer exercise/reduction/stage3_missing_sync racecheck 2^22}}",
    )
}

/// What compute-sanitizer's `check` found in example `id` at size `n`,
/// or why there is no report.
pub fn read(stored: &StoredReports, id: &str, check: &str, n: Dims) -> Result<Report, StoredError> {
    stored.load(
        &sanitizer::relative_path(id, check, n),
        "not run",
        RESANITIZE,
    )
}

/// The file a `{{#sanitizer}}` reads, for the status page: made when and
/// by which compute-sanitizer.
pub fn stored_file(id: &str, check: &str, size: Dims, stored: &StoredReports) -> StoredFile {
    StoredFile {
        kind: Kind::Sanitizer,
        rel: sanitizer::relative_path(id, check, size),
        made: read(stored, id, check, size)
            .ok()
            .map(|r| (r.made_at, r.tool)),
    }
}

/// A `{{#sanitizer}}` as a page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SanitizerView {
    /// The example id.
    pub id: String,
    /// The check (`racecheck`).
    pub check: String,
    /// The size run.
    pub size: Dims,
    /// The report's file as messages show it.
    pub file: String,
    /// The report, or why there is none.
    pub stored: Result<Stored, StoredError>,
}

/// A stored report with the code its places point at.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The report.
    pub report: Report,
    /// Each finding with the source lines it names.
    pub findings: Vec<FindingView>,
    /// Why the report no longer describes the code, or `None` when current.
    pub stale: Option<String>,
}

/// One finding and the code at its places.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingView {
    /// The finding as stored.
    pub finding: Finding,
    /// Each place it names, in order, once each.
    pub sources: Vec<SourceLine>,
}

/// A place a finding names and the code there.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceLine {
    /// `stage3_missing_sync.cu:24`.
    pub place: String,
    /// The line's code, without its indentation; `None` when the report is
    /// stale (the line may have moved) or the place is not a line of the
    /// example's files.
    pub code: Option<String>,
}

impl SanitizerView {
    /// Why this makes a strict build fail: the report is missing or stale.
    pub fn problem(&self) -> Option<String> {
        match &self.stored {
            Ok(stored) => stored.stale.clone(),
            Err(reason) => Some(reason.to_string()),
        }
    }

    /// `compute-sanitizer racecheck`, the heading's start.
    pub fn title(&self) -> String {
        format!("compute-sanitizer {}", self.check)
    }

    /// `exercise/reduction/stage3_missing_sync at N = 2^22`.
    pub fn subject(&self) -> String {
        format!("{} at {}", self.id, self.size.words())
    }
}

impl Stored {
    /// `1 error, 0 warnings`.
    pub fn counts(&self) -> String {
        let r = &self.report;
        format!(
            "{} {}, {} {}",
            r.errors,
            if r.errors == 1 { "error" } else { "errors" },
            r.warnings,
            if r.warnings == 1 {
                "warning"
            } else {
                "warnings"
            }
        )
    }

    /// `compute-sanitizer 2025.3.1 · NVIDIA H200 · run 2026-12-01`.
    pub fn facts(&self) -> String {
        let r = &self.report;
        format!("{} · {} · run {}", r.tool, r.gpu, figures::date(&r.made_at))
    }

    /// `✓` when nothing was found, `!` for warnings only, `✗` for errors.
    pub fn mark(&self) -> &'static str {
        match (self.report.errors, self.report.warnings) {
            (0, 0) => "✓",
            (0, _) => "!",
            _ => "✗",
        }
    }
}

impl FindingView {
    /// The finding's lines as the tool printed them, continuation lines
    /// indented under the first.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (k, line) in self.finding.lines.iter().enumerate() {
            if k > 0 {
                out.push_str("\n    ");
            }
            out.push_str(line);
        }
        out
    }
}

/// Evaluates `{{#sanitizer}}`.
pub fn evaluate(
    id: &str,
    check: &str,
    size: Dims,
    results: &Results<'_>,
) -> Result<SanitizerView, Shown> {
    let Some((example, key)) = results.example(id) else {
        return Err(Shown::Mistake(results.unknown_id(id).to_string()));
    };
    if let Some(mistake) =
        undeclared_size(example, size).or_else(|| not_a_kernel_file(example, "{{#sanitizer}}"))
    {
        return Err(Shown::Mistake(mistake));
    }
    let file = results
        .stored()
        .shown(&sanitizer::relative_path(id, check, size));
    let stored = match read(results.stored(), id, check, size) {
        Err(reason) => Err(reason),
        Ok(report) if report.example != id || report.check != check || report.size() != size => {
            return Err(Shown::Unmeasured(format!(
                "{file} holds {} of `{}` at {}, not {check} of `{id}` at {}; {RESANITIZE}",
                report.check,
                report.example,
                report.size().words(),
                size.words()
            )));
        }
        Ok(report) => {
            let stale = (report.key != key)
                .then(|| format!("{file} was run on an earlier version of `{id}`; {RESANITIZE}"));
            let findings = report
                .findings
                .iter()
                .map(|f| FindingView {
                    finding: f.clone(),
                    sources: sources(f, example, stale.is_none()),
                })
                .collect();
            Ok(Stored {
                report,
                findings,
                stale,
            })
        }
    };
    Ok(SanitizerView {
        id: id.to_string(),
        check: check.to_string(),
        size,
        file,
        stored,
    })
}

/// Whether a `{{#sanitizer}}` waits only for the GPU machine's sanitize
/// stage: its example is one of the book's, declares the size, and the
/// report is missing, unreadable or of earlier code.
pub fn awaits_report(id: &str, check: &str, size: Dims, results: &Results<'_>) -> bool {
    let Some((example, key)) = results.example(id) else {
        return false;
    };
    if undeclared_size(example, size).is_some()
        || not_a_kernel_file(example, "{{#sanitizer}}").is_some()
    {
        return false;
    }
    match read(results.stored(), id, check, size) {
        Ok(report) => report.example == id && report.key != key,
        Err(_) => true,
    }
}

/// The places `finding` names, each once, with the code there when the
/// report is `current`.
fn sources(finding: &Finding, example: &Example, current: bool) -> Vec<SourceLine> {
    let mut out: Vec<SourceLine> = Vec::new();
    for at in &finding.locations {
        let place = format!("{}:{}", at.file, at.line);
        if out.iter().any(|s| s.place == place) {
            continue;
        }
        let code = current
            .then(|| sass_counts::placed_line(&example.source, &at.file, at.line))
            .flatten()
            .map(|(_, text)| text.trim().to_string());
        out.push(SourceLine { place, code });
    }
    out
}

#[cfg(test)]
mod tests;
