//! What NVIDIA's compute-sanitizer found in one run of an example at one
//! size (racecheck for shared-memory hazards, memcheck, synccheck or
//! initcheck), stored as `results/sanitizer/<example id>/<check>-<n>.json`.
//! A report is current while its `key` equals the example's key.
//!
//! The tool's report lines start with `========= `; [`parse`] keeps them
//! verbatim (the page can always show what the tool said) and also reads
//! each finding's source locations (`file.cu:LINE`) and the summary's
//! error and warning counts, leniently: a line it cannot read is kept as
//! text, never dropped.

use crate::dims::Dims;
use crate::size::Size;
use serde::{Deserialize, Serialize};

/// Version of the report format.
pub const SCHEMA_VERSION: u32 = 1;

/// The checks the runner can run, by compute-sanitizer's `--tool` name.
pub const CHECKS: &[&str] = &["racecheck", "memcheck", "synccheck", "initcheck"];

/// One stored run of the sanitizer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Format version ([`SCHEMA_VERSION`]).
    pub schema: u32,
    /// The example's id.
    pub example: String,
    /// The example's key when it was run.
    pub key: String,
    /// The size run (for a size of several dimensions, the product of
    /// their values).
    pub n: Size,
    /// The values of each dimension, for a problem of several.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::problem::dims_map"
    )]
    pub dims: Option<Dims>,
    /// The check (`racecheck`).
    pub check: String,
    /// The tool and its version (`compute-sanitizer 2025.3.1`).
    pub tool: String,
    /// The GPU it ran on.
    pub gpu: String,
    /// When (RFC 3339).
    pub made_at: String,
    /// Each finding, in the tool's order.
    pub findings: Vec<Finding>,
    /// The summary line, as printed (`RACECHECK SUMMARY: 1 hazard
    /// displayed (1 error, 0 warnings)`), if there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Errors the summary counts (or the findings, without a summary).
    pub errors: u32,
    /// Warnings the summary counts.
    pub warnings: u32,
}

/// One finding: its lines as printed, and the source places they name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// `Error` or `Warning` (as the first line begins), else empty.
    pub severity: String,
    /// The finding's lines, without the `========= ` prefix.
    pub lines: Vec<String>,
    /// The source places it names, in order.
    pub locations: Vec<Location>,
}

/// A place in a kernel's source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Location {
    /// The file name as the tool printed it (its last path component).
    pub file: String,
    /// The line.
    pub line: u32,
}

/// The file of a report, relative to the results folder: `CHECK-<n>.json`,
/// or for a size of several dimensions `CHECK-rows-8192_cols-4096.json`
/// ([`crate::dims::Dims::file_stem`]).
pub fn relative_path(id: &str, check: &str, size: Dims) -> String {
    format!("sanitizer/{id}/{check}-{}.json", size.file_stem())
}

impl Report {
    /// The size run.
    pub fn size(&self) -> Dims {
        self.dims.unwrap_or(Dims::n(self.n.0))
    }
}

/// What the tool's output says: the findings, the summary line and its
/// counts. `compute-sanitizer` prefixes its lines with `========= `;
/// other output (the program's) is ignored.
pub fn parse(output: &str) -> (Vec<Finding>, Option<String>, u32, u32) {
    let mut findings: Vec<Finding> = Vec::new();
    let mut summary = None;
    for raw in output.lines() {
        let Some(line) = raw.strip_prefix("=========") else {
            continue;
        };
        let text = line.trim_end();
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed == "COMPUTE-SANITIZER" {
            continue;
        }
        if trimmed.contains("SUMMARY:") {
            summary = Some(trimmed.to_string());
            continue;
        }
        let starts = ["Error", "Warning"]
            .into_iter()
            .find(|s| trimmed.starts_with(s) && trimmed[s.len()..].starts_with(':'));
        match (starts, findings.last_mut()) {
            (None, Some(f)) if text.starts_with("  ") || text.starts_with('\t') => {
                f.lines.push(trimmed.to_string());
            }
            (Some(severity), _) => findings.push(Finding {
                severity: severity.to_string(),
                lines: vec![trimmed.to_string()],
                locations: Vec::new(),
            }),
            // A line of its own (e.g. a program's error the tool caught).
            (None, _) => findings.push(Finding {
                severity: String::new(),
                lines: vec![trimmed.to_string()],
                locations: Vec::new(),
            }),
        }
    }
    for f in &mut findings {
        f.locations = f.lines.iter().flat_map(|l| locations(l)).collect();
    }
    let count = |word: &str| -> Option<u32> {
        let s = summary.as_deref()?;
        let at = s.find(word)?;
        s[..at]
            .split(|c: char| !c.is_ascii_digit())
            .rfind(|t| !t.is_empty())?
            .parse()
            .ok()
    };
    let errors = count(" error")
        .unwrap_or_else(|| findings.iter().filter(|f| f.severity == "Error").count() as u32);
    let warnings = count(" warning")
        .unwrap_or_else(|| findings.iter().filter(|f| f.severity == "Warning").count() as u32);
    (findings, summary, errors, warnings)
}

/// The `name.cu:LINE` (or `.cuh`) places named in `text`.
fn locations(text: &str) -> Vec<Location> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(".cu") {
        let mut end = at + 3;
        if text[end..].starts_with('h') {
            end += 1;
        }
        let Some(digits) = text[end..].strip_prefix(':') else {
            continue;
        };
        let line: String = digits.chars().take_while(char::is_ascii_digit).collect();
        let Ok(line) = line.parse() else { continue };
        let start = text[..at]
            .rfind(|c: char| c.is_whitespace() || c == '(' || c == '\'' || c == '"')
            .map_or(0, |i| i + 1);
        let path = &text[start..end];
        let file = path.rsplit('/').next().unwrap_or(path).to_string();
        found.push(Location { file, line });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    // A racecheck report as compute-sanitizer prints it around the
    // program's own output: two findings, each with a continuation line,
    // then the summary.
    const RACE: &str = "\
========= COMPUTE-SANITIZER
cuda-runner launch-once: GPU NVIDIA H200
========= Error: Race reported between Write access at sum_block_fold_missing_sync+0x90 in /b/kernels/exercise/reduction/stage3_missing_sync.cu:24
=========     and Read access at sum_block_fold_missing_sync+0x120 in /b/kernels/exercise/reduction/stage3_missing_sync.cu:33 [4096 hazards]
=========
========= Warning: Race reported between Write access at k+0x10 in k.cuh:7
=========     and Write access at k+0x20 in k.cuh:9 [2 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
";

    // Findings keep their lines and places; the counts come from the
    // summary; the program's own lines are not findings.
    #[test]
    fn a_racecheck_report_is_read_into_findings_places_and_counts() {
        let (findings, summary, errors, warnings) = parse(RACE);
        assert_eq!(findings.len(), 2, "{findings:#?}");
        assert_eq!(findings[0].severity, "Error");
        assert_eq!(findings[0].lines.len(), 2);
        assert_eq!(
            findings[0].locations,
            vec![
                Location {
                    file: "stage3_missing_sync.cu".into(),
                    line: 24
                },
                Location {
                    file: "stage3_missing_sync.cu".into(),
                    line: 33
                }
            ]
        );
        assert_eq!(findings[1].locations[1].file, "k.cuh");
        assert_eq!(findings[1].locations[1].line, 9);
        assert!(summary.unwrap().starts_with("RACECHECK SUMMARY"));
        assert_eq!((errors, warnings), (1, 1));
    }

    // A clean run has no findings and zero counts, from its summary.
    #[test]
    fn a_clean_run_counts_nothing() {
        let (findings, summary, errors, warnings) = parse(
            "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n",
        );
        assert!(findings.is_empty());
        assert!(summary.is_some());
        assert_eq!((errors, warnings), (0, 0));
    }

    // Without a summary line the counts are the findings'.
    #[test]
    fn without_a_summary_the_findings_are_counted() {
        let (f, s, e, w) = parse("========= Error: out of bounds read at x.cu:3\n");
        assert_eq!((f.len(), s, e, w), (1, None, 1, 0));
    }
}
