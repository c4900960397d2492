//! The answer to a run: its outcome and message, the reader's
//! diagnostics, the record and the panel the book build renders for it
//! (mdbook-cuda's own renderer, `render::html::panel`), every text
//! scrubbed of server paths and its log capped.

use super::api::{Diagnostic, Elapsed, GateResult, Outcome, RunAnswer};
use super::diagnostics::{self, Scrub};
use super::splice::Spliced;
use cuda_runner::example::Example;
use cuda_runner::record::{Record, SizeResult, Status};

/// How much faster than its bytes at the measured ceiling allow a time
/// may look before it is refused: the ceiling is itself a measurement
/// (a copy kernel's median), and a kernel may beat it by a few percent.
pub const IMPOSSIBLE_MARGIN: f64 = 0.10;

/// An answer being made.
#[derive(Debug)]
pub struct Draft {
    /// The outcome so far.
    pub outcome: Outcome,
    /// Its one line.
    pub message: String,
    /// Compiler messages at the reader's lines.
    pub diagnostics: Vec<Diagnostic>,
    /// The record, when there is one.
    pub record: Option<Record>,
    /// The stage's gates.
    pub gates: Vec<GateResult>,
    /// Where the time went.
    pub elapsed: Elapsed,
    /// An example that compiled, to measure next.
    pub measure_next: Option<Example>,
    /// The text compiled but does not define the kernels its header
    /// launches (for a stage: perhaps the starter's, see `Runnable::starter`).
    pub mismatch: bool,
}

impl Draft {
    /// A draft ending with `outcome` and `message`.
    pub fn new(outcome: Outcome, message: impl Into<String>) -> Draft {
        Draft {
            outcome,
            message: message.into(),
            diagnostics: Vec::new(),
            record: None,
            gates: Vec::new(),
            elapsed: Elapsed::default(),
            measure_next: None,
            mismatch: false,
        }
    }
}

/// The reader's one line for a compile error: the first error at its
/// line in their text, else NVRTC's first error line.
pub fn first_error_message(diagnostics: &[Diagnostic], first_error: &str) -> String {
    let first = diagnostics
        .iter()
        .find(|d| d.severity.contains("error"))
        .or_else(|| diagnostics.first());
    match first {
        Some(Diagnostic {
            line: Some(line),
            message,
            severity,
            ..
        }) => format!("line {line}: {severity}: {message}"),
        Some(d) => format!("{}: {}", d.severity, d.message),
        None => first_error.to_string(),
    }
}

/// Sets the outcome of a measured `record` of the reader's `example`.
pub fn settle_measured(
    draft: &mut Draft,
    record: Record,
    scrub: &Scrub,
    spliced: &Spliced,
    example: &Example,
) {
    let (outcome, message) = match record.status {
        Status::Pass => match impossible(&record) {
            Some(why) => (Outcome::Impossible, why),
            None => (Outcome::Measured, measured_line(&record)),
        },
        Status::Wrong => (Outcome::Wrong, record.message.clone()),
        Status::CompileError => {
            draft.diagnostics = diagnostics::diagnostics(
                &record.log,
                &example.origin.file,
                example.origin.line,
                spliced,
            );
            (
                Outcome::CompileError,
                first_error_message(&draft.diagnostics, &record.message),
            )
        }
        Status::Timeout => (Outcome::Timeout, record.message.clone()),
        Status::LaunchError | Status::Fault | Status::SetupError => {
            (Outcome::Fault, record.message.clone())
        }
    };
    draft.outcome = outcome;
    draft.message = scrub.text(&message);
    draft.record = Some(record);
}

/// `12.3 µs at n = 4194304 (…GB/s, …% of the read ceiling)`.
fn measured_line(record: &Record) -> String {
    let Some(s) = record.sizes.first() else {
        return "measured".into();
    };
    let pct = s
        .pct_ceiling
        .map(|p| format!(", {p:.0}% of its ceiling"))
        .unwrap_or_default();
    format!(
        "measured: median {:.2} µs at n = {} ({:.0} GB/s{pct}); a quick measurement, not the book's method",
        s.median_us, s.n.0, s.gbs
    )
}

/// Why `record`'s times cannot be true: a cold, bandwidth-bound size whose
/// median is shorter than its bytes take at the ceiling measured in the
/// same process (beyond [`IMPOSSIBLE_MARGIN`]); a kernel that skips its
/// input or remembers an answer looks like this.
pub fn impossible(record: &Record) -> Option<String> {
    let ceilings = record.ceilings.as_ref()?;
    record.sizes.iter().find_map(|s| {
        let ceiling_gbs = bandwidth_ceiling(s, ceilings)?;
        let floor_us = s.bytes as f64 / (ceiling_gbs * 1e9) * 1e6;
        (s.median_us * (1.0 + IMPOSSIBLE_MARGIN) < floor_us).then(|| {
            format!(
                "impossible: a median of {:.2} µs at n = {}, but its {} bytes take at least {:.2} µs at the {:.0} GB/s this GPU measured; a kernel that skips its input or reuses an earlier answer looks like this",
                s.median_us, s.n.0, s.bytes, floor_us, ceiling_gbs
            )
        })
    })
}

/// The bandwidth a cold size is held to: the read ceiling, or the copy
/// ceiling for a copy; none for a warm size (its data may sit in L2) or a
/// size held to another figure.
fn bandwidth_ceiling(s: &SizeResult, ceilings: &cuda_runner::method::Ceilings) -> Option<f64> {
    if s.warm || s.bytes == 0 || s.median_us.is_nan() || s.median_us <= 0.0 {
        return None;
    }
    match (s.ceiling.as_deref(), s.figure.as_deref()) {
        (None, Some("ns_per_access")) => None,
        (None, _) => Some(ceilings.read_gbs),
        (Some("copy"), _) => Some(s.ceiling_gbs.unwrap_or(ceilings.copy_gbs)),
        _ => None,
    }
    .filter(|g| *g > 0.0)
}

/// The answer: texts scrubbed, logs capped, the panel rendered from the
/// record by the book's renderer.
pub fn finish(draft: Draft, id: &str, scrub: &Scrub) -> RunAnswer {
    let record = draft.record.map(|mut r| {
        r.quick = true;
        r.message = scrub.text(&r.message);
        r.log = diagnostics::capped(&scrub.text(&r.log));
        r
    });
    let panel_html = record
        .as_ref()
        .map(|r| {
            let outcome = mdbook_cuda::outcome::Outcome::Fresh(r.clone());
            mdbook_cuda::render::html::panel(&mdbook_cuda::render::Panel {
                id,
                anchor: None,
                outcome: &outcome,
                raw: "",
            })
        })
        .unwrap_or_default();
    RunAnswer {
        outcome: draft.outcome,
        quick: true,
        message: scrub.text(&draft.message),
        diagnostics: draft
            .diagnostics
            .into_iter()
            .map(|d| Diagnostic {
                message: scrub.text(&d.message),
                ..d
            })
            .collect(),
        record,
        panel_html,
        gates: draft
            .gates
            .into_iter()
            .map(|g| GateResult {
                detail: scrub.text(&g.detail),
                ..g
            })
            .collect(),
        elapsed_ms: draft.elapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuda_runner::method::Ceilings;

    fn record(median_us: f64, bytes: u64, warm: bool) -> Record {
        let dir = tempfile::tempdir().unwrap();
        let body = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";
        let example =
            Example::from_inline(dir.path(), "src/ch.md", dir.path(), body, 1, "x").unwrap();
        let mut r = Record::failure(&example, "k", Status::Pass, "", "");
        r.ceilings = Some(Ceilings {
            read_gbs: 4000.0,
            copy_gbs: 3500.0,
            launch_floor_us: 2.0,
            buffer_bytes: 0,
            named: Default::default(),
        });
        r.sizes.push(SizeResult {
            median_us,
            bytes,
            warm,
            ..SizeResult::default()
        });
        r
    }

    // 16 MiB read at 4000 GB/s take 4.19 µs: 4.0 µs is within the margin,
    // 2 µs is impossible; a warm size is never held to DRAM's ceiling.
    #[test]
    fn faster_than_the_ceiling_is_impossible() {
        let bytes = 1 << 24;
        assert_eq!(impossible(&record(4.0, bytes, false)), None);
        let why = impossible(&record(2.0, bytes, false)).unwrap();
        assert!(why.starts_with("impossible: a median of 2.00 µs"), "{why}");
        assert_eq!(impossible(&record(2.0, bytes, true)), None);
    }
}
