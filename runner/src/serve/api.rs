//! The service's HTTP contract in types (notes/run-api.md): the request a
//! page posts to `/run`, the answer, the error body and `/health`.

use cuda_runner::record::Record;
use serde::{Deserialize, Serialize};

/// `POST /run`'s body.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// An example id (`reductions/tree`).
    #[serde(default)]
    pub example: Option<String>,
    /// An exercise stage (`reduction/stage2`).
    #[serde(default)]
    pub stage: Option<String>,
    /// Which of the example's blocks the editor holds, when the book shows
    /// the example again under another anchor: that anchor (optional).
    #[serde(default)]
    pub anchor: Option<String>,
    /// The text the editor holds.
    pub source: String,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Ran, every checked answer right, timed.
    Measured,
    /// NVRTC refused it, or it does not match the declaration.
    CompileError,
    /// Ran; an answer was wrong.
    Wrong,
    /// A kernel faulted, a launch was refused, or its process died.
    Fault,
    /// Compiling or running went past its limit and was stopped.
    Timeout,
    /// Faster than its bytes allow at the measured bandwidth ceiling.
    Impossible,
    /// Compiled; this instance has no GPU.
    NoGpu,
}

/// One compiler message, at the reader's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line in the reader's text; `None` for a message about the
    /// book's own code.
    pub line: Option<usize>,
    /// 1-based column, when the compiler gives one.
    pub column: Option<usize>,
    /// `error`, `warning`, ...
    pub severity: String,
    /// The message.
    pub message: String,
}

/// One exercise gate as judged for the reader's kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateResult {
    /// The gate's name.
    pub gate: String,
    /// Whether it passed; `None`: not judged (the reason is in `detail`).
    pub passed: Option<bool>,
    /// What was measured against what, or why it was not judged.
    pub detail: String,
}

/// Milliseconds each part took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Elapsed {
    /// Splicing and compiling.
    pub compile: u64,
    /// Measuring (0 without a GPU).
    pub measure: u64,
    /// The whole request, the wait in the queue included.
    pub total: u64,
}

/// `POST /run`'s answer (200).
#[derive(Debug, Clone, Serialize)]
pub struct RunAnswer {
    /// How it ended.
    pub outcome: Outcome,
    /// Always true: a quick measurement, not the book's method.
    pub quick: bool,
    /// One line a reader can act on.
    pub message: String,
    /// The compiler's messages, at the reader's lines.
    pub diagnostics: Vec<Diagnostic>,
    /// The record the store would hold, when there is one.
    pub record: Option<Record>,
    /// The panel the build renders for that record (empty without one).
    pub panel_html: String,
    /// The stage's gates (exercise stages only).
    pub gates: Vec<GateResult>,
    /// Where the time went.
    pub elapsed_ms: Elapsed,
}

/// The body of every answer that is not 200.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorBody {
    /// What is wrong and what to do.
    pub error: String,
    /// The ids closest to an unknown one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub closest: Vec<String>,
    /// Seconds to wait before trying again (429, 503).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
}

/// The GPU `/health` names.
#[derive(Debug, Clone, Serialize)]
pub struct HealthGpu {
    /// `NVIDIA H200`.
    pub name: String,
    /// `GPU-...`, where the driver gives one.
    pub uuid: Option<String>,
}

/// The queue as `/health` shows it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct HealthQueue {
    /// Jobs running (0 or 1).
    pub running: usize,
    /// Jobs waiting.
    pub waiting: usize,
    /// Jobs that may wait.
    pub capacity: usize,
}

/// `GET /health`'s answer.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// Always `cuda-runner`.
    pub service: &'static str,
    /// The runner's version.
    pub version: &'static str,
    /// `measure` or `compile-only`.
    pub mode: &'static str,
    /// The GPU, or `None` in compile-only mode.
    pub gpu: Option<HealthGpu>,
    /// The queue now.
    pub queue: HealthQueue,
}
