//! `{{#allreduce GPUS}}`: the all-reduce across GPUS GPUs of the book's
//! target GPU model, read from the report `cuda-runner allreduce --gpus
//! GPUS` writes on a machine with that many GPUs
//! (`results/allreduce/<model>-<GPUS>gpu.json`); and
//! `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`, one figure of it.
//!
//! A report is current while it is of the schema this preprocessor reads
//! ([`SCHEMA_VERSION`]), of GPUS GPUs of the target model, and its
//! `kernels_key` is the key of `kernels/allreduce/*.cu` as they are now
//! ([`kernels::kernels_key`]). One that is not is shown greyed, saying
//! why; a missing one renders "not measured" with the command that makes
//! it. Either fails the strict build and waits in the author's build: a
//! run on a machine with GPUS GPUs settles it.

use super::{Kind, StoredFile};
use crate::figures::{self, gpu_count};
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{StoredError, StoredReports};
use cuda_measured_core::allreduce::kernels::{self, KERNEL_FILES};
use cuda_measured_core::allreduce::report::{Report, Row, SCHEMA_VERSION, relative_path};
use cuda_measured_core::allreduce::sizes::format_bytes;
use cuda_measured_core::limits::KnownGpu;

mod args;
mod chart;
mod render;
mod topology;
pub use args::{AllreduceField, ArgsError, Figure, parse_figure, parse_report};
pub use render::{html, markdown};
pub use topology::link_summary;

/// The command that makes the all-reduce report over `gpus` GPUs.
pub fn command(gpus: usize) -> String {
    format!("cuda-runner allreduce --gpus {gpus}")
}

/// How to make the all-reduce report over `gpus` GPUs again.
pub fn reallreduce(gpus: usize) -> String {
    let machine = if gpus == 1 {
        "a GPU".to_string()
    } else {
        format!("{gpus} GPUs")
    };
    format!(
        "run `{}` in the book's root on a machine with {machine} and commit results/allreduce/",
        command(gpus)
    )
}

/// The all-reduce report over `gpus` GPUs of the book's target GPU
/// model, or why there is none.
pub fn read(stored: &StoredReports, gpus: usize) -> Result<Report, StoredError> {
    let target = KnownGpu::target().name;
    stored.load(
        &relative_path(target, gpus),
        "not measured",
        &reallreduce(gpus),
    )
}

/// The file an `{{#allreduce}}` or `{{#allreduce_figure}}` reads, for the
/// status page: made when, by which runner and NCCL.
pub fn stored_file(gpus: usize, stored: &StoredReports) -> StoredFile {
    StoredFile {
        kind: Kind::Allreduce(gpus),
        rel: relative_path(KnownGpu::target().name, gpus),
        made: read(stored, gpus).ok().map(|r| {
            let nccl = r.software.nccl.map(|v| format!(", NCCL {v}"));
            (
                r.measured_at,
                format!("cuda-runner {}{}", r.runner, nccl.unwrap_or_default()),
            )
        }),
    }
}

/// Why the key of the all-reduce kernels as they are now is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A kernel file cannot be read.
    #[error(transparent)]
    File(#[from] StoredError),
    /// A kernel file is not UTF-8 text.
    #[error("{0} is not UTF-8 text")]
    NotText(&'static str),
}

/// An `{{#allreduce}}` as a page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct AllreduceView {
    /// GPUs of the run.
    pub gpus: usize,
    /// The report's file as messages show it.
    pub file: String,
    /// The report, or why there is none (with the command that makes it).
    pub stored: Result<Stored, StoredError>,
}

/// A stored report and whether it still describes the book.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The report.
    pub report: Report,
    /// Why it no longer describes the book's kernels or the runner's
    /// schema, or `None` when current.
    pub stale: Option<String>,
}

impl AllreduceView {
    /// Why this makes a strict build fail: the report is missing, cannot
    /// be read, or is stale.
    pub fn problem(&self) -> Option<String> {
        match &self.stored {
            Err(reason) => Some(reason.to_string()),
            Ok(Stored {
                stale: Some(reason),
                ..
            }) => Some(format!(
                "{}: {reason}; {}",
                self.file,
                reallreduce(self.gpus)
            )),
            Ok(_) => None,
        }
    }

    /// `All-reduce over 2 GPUs`, the heading's start.
    pub fn title(&self) -> String {
        format!("All-reduce (f32 sum) over {}", gpu_count(self.gpus))
    }
}

/// Reads and judges the report over `gpus` GPUs.
pub fn view(gpus: usize, results: &Results<'_>) -> AllreduceView {
    let target = KnownGpu::target().name;
    let stored = results.stored();
    AllreduceView {
        gpus,
        file: stored.shown(&relative_path(target, gpus)),
        stored: read(stored, gpus).map(|report| Stored {
            stale: staleness(&report, gpus, target, &kernels_key_now(stored)),
            report,
        }),
    }
}

/// Evaluates `{{#allreduce}}`.
pub fn evaluate(gpus: usize, results: &Results<'_>) -> AllreduceView {
    view(gpus, results)
}

/// Whether an `{{#allreduce}}` or `{{#allreduce_figure}}` waits only for a
/// run on a machine with `gpus` GPUs: its report is missing, unreadable or
/// stale. (A figure of a current report that lacks the size or
/// implementation does not wait: the default sweep would not make it.)
pub fn awaits_report(gpus: usize, results: &Results<'_>) -> bool {
    view(gpus, results).problem().is_some()
}

/// Evaluates `{{#allreduce_figure}}`: one figure of a current report.
pub fn figure(
    gpus: usize,
    implementation: &str,
    field: AllreduceField,
    bytes: u64,
    results: &Results<'_>,
) -> Shown {
    let view = view(gpus, results);
    let report = match &view.stored {
        Ok(Stored {
            report,
            stale: None,
        }) => report,
        _ => return Shown::Unmeasured(view.problem().unwrap_or_default()),
    };
    let size = format_bytes(bytes);
    let Some(row) = row_of(report, implementation, bytes) else {
        let sizes: Vec<String> = report
            .rows
            .iter()
            .filter(|r| r.implementation == implementation)
            .map(|r| format_bytes(r.bytes))
            .collect();
        return Shown::Unmeasured(if sizes.is_empty() {
            format!("{} has no {implementation} rows", view.file)
        } else {
            format!(
                "{} has no {implementation} at {size}: its sizes are {}",
                view.file,
                sizes.join(", ")
            )
        });
    };
    let Some(t) = &row.timing else {
        let why = row.error.as_deref().unwrap_or("not timed");
        return Shown::Unmeasured(format!(
            "{implementation} at {size} in {} has no figure: {why}",
            view.file
        ));
    };
    let text = match field {
        AllreduceField::Time => figures::time_us(t.median_us),
        AllreduceField::Algbw => figures::gbs(t.algbw_gbs),
        AllreduceField::Busbw => figures::gbs(t.busbw_gbs),
    };
    let mut title = format!(
        "{implementation} all-reduce of {size} over {}, hot, the slowest rank's median; measured {}",
        gpus_of(report),
        figures::date(&report.measured_at)
    );
    if field == AllreduceField::Busbw
        && let Some(note) = &report.busbw_note
    {
        title.push_str(&format!("; {note}"));
    }
    Shown::Figure { text, title }
}

/// The row of `implementation` at `bytes`.
pub fn row_of<'a>(report: &'a Report, implementation: &str, bytes: u64) -> Option<&'a Row> {
    report
        .rows
        .iter()
        .find(|r| r.implementation == implementation && r.bytes == bytes)
}

/// `2 × NVIDIA H200`, or every rank's GPU when they differ.
pub fn gpus_of(report: &Report) -> String {
    let mut names: Vec<&str> = report.gpus.iter().map(|g| g.name.as_str()).collect();
    names.dedup();
    match names.as_slice() {
        [one] => format!("{} × {one}", report.ranks),
        _ => names.join(" + "),
    }
}

/// The key of the all-reduce kernels as they are now in the book, or why
/// they cannot be read.
fn kernels_key_now(stored: &StoredReports) -> Result<String, KeyError> {
    let mut texts = Vec::new();
    for path in KERNEL_FILES {
        let bytes = stored.book_file(path)?;
        let text = String::from_utf8(bytes).map_err(|_| KeyError::NotText(path))?;
        texts.push((path, text));
    }
    let files: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (*p, t.as_str())).collect();
    Ok(kernels::kernels_key(&files))
}

/// Why `report` no longer describes a run of `gpus` GPUs of `target` with
/// the kernels whose key is `key_now`, or `None`.
fn staleness(
    report: &Report,
    gpus: usize,
    target: &str,
    key_now: &Result<String, KeyError>,
) -> Option<String> {
    let mut reasons = Vec::new();
    if report.schema != SCHEMA_VERSION {
        reasons.push(format!(
            "written as report schema v{}; this preprocessor reads v{SCHEMA_VERSION}",
            report.schema
        ));
    }
    if report.ranks != gpus {
        reasons.push(format!(
            "it holds a run over {}, not {}",
            gpu_count(report.ranks),
            gpu_count(gpus)
        ));
    }
    if let Some(other) = report.gpus.iter().find(|g| g.name != target) {
        reasons.push(format!(
            "measured on {}, not on the book's {target}",
            other.name
        ));
    }
    match (&report.kernels_key, key_now) {
        (None, _) => reasons.push(
            "written before reports recorded the key of the all-reduce kernels (kernels/allreduce/)"
                .into(),
        ),
        (Some(_), Err(why)) => reasons.push(format!(
            "{why}, so whether the all-reduce kernels changed since it was measured is not known"
        )),
        (Some(then), Ok(now)) if then != now => reasons
            .push("the all-reduce kernels (kernels/allreduce/) changed since it was measured".into()),
        (Some(_), Ok(_)) => {}
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

#[cfg(test)]
mod tests;
