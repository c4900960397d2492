//! Every kind of stored artifact the book's pages show besides the
//! examples' records, one module each, and each module the whole of its
//! kind: the directive's arguments read (`args`), the stored file read and
//! judged against the book as it is now, the view evaluated and its HTML
//! and markdown rendered, and what the `{{#status}}` page lists of its file.
//!
//! - [`sass`]: `{{#sass}}`, `{{#sass_count}}` from `results/sass/<id>.json`
//!   (`scripts/sass`, no GPU);
//! - [`profile`]: `{{#profile}}` from `results/profile/<gpu>/<id>/<n>.json`
//!   (Nsight Compute);
//! - [`sanitizer`]: `{{#sanitizer}}` from
//!   `results/sanitizer/<id>/<check>-<n>.json` (compute-sanitizer);
//! - [`host`]: `{{#host}}` from `results/host/<id>/<language>.json` (the
//!   host programs of `bench/host/`);
//! - [`peers`]: `{{#peers}}` from `results/peers/<problem>.json` (vendor
//!   libraries);
//! - [`repeatability`]: `{{#repeatability}}` from
//!   `results/repeatability.json` (the book measured twice);
//! - [`allreduce`]: `{{#allreduce}}`, `{{#allreduce_figure}}` from
//!   `results/allreduce/<model>-<k>gpu.json` (`cuda-runner allreduce`).
//!
//! They sit on the book's [`crate::results`], the [`crate::stored`]
//! folder and the shared drawing of [`crate::render`] (tables, charts,
//! markup); [`crate::directives`], [`crate::values`],
//! [`crate::evidence_judge`] and [`crate::page`] dispatch to them. No kind
//! imports another.

pub mod allreduce;
pub mod host;
pub mod peers;
pub mod profile;
pub mod repeatability;
pub mod sanitizer;
pub mod sass;

/// What one directive says of one stored file, for the `{{#status}}`
/// page ([`crate::evidence`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The file's kind.
    pub kind: Kind,
    /// Its path under the store (`sass/r/tree.json`).
    pub rel: String,
    /// Where it stands.
    pub state: State,
    /// Why it is not current, as the build says it.
    pub reason: Option<String>,
    /// The day it was made (`2026-05-01`) and the tool that made it.
    pub made: Option<(String, String)>,
}

/// A stored file a directive reads: its kind, its path under the store
/// and, when it can be read, when (a timestamp) and with what it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFile {
    /// The file's kind.
    pub kind: Kind,
    /// Its path under the store.
    pub rel: String,
    /// `(made_at, tool)`, when the file reads.
    pub made: Option<(String, String)>,
}
/// What kind of evidence a file is, in the order the page groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `results/profile/<id>/<n>.json`.
    Profile,
    /// `results/sass/<id>.json`.
    Sass,
    /// `results/sanitizer/<id>/<check>-<n>.json`.
    Sanitizer,
    /// `results/host/<id>/<language>.json`.
    Host,
    /// `results/peers/<problem>.json`.
    Peers,
    /// `results/repeatability.json`.
    Repeatability,
    /// `results/allreduce/<model>-<k>gpu.json`, made on a machine with k
    /// GPUs.
    Allreduce(usize),
}

impl Kind {
    /// `Nsight Compute profile`, the group's name.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Profile => "Nsight Compute profile",
            Kind::Sass => "SASS listing",
            Kind::Sanitizer => "compute-sanitizer report",
            Kind::Host => "host-program run",
            Kind::Peers => "peers comparison",
            Kind::Repeatability => "repeatability report",
            Kind::Allreduce(_) => "all-reduce report",
        }
    }

    /// The command that makes the file again.
    pub fn command(self) -> String {
        match self {
            Kind::Profile => SESSION.to_string() + "profile",
            Kind::Sass => "scripts/sass".into(),
            Kind::Sanitizer => SESSION.to_string() + "sanitize",
            Kind::Host => SESSION.to_string() + "host",
            Kind::Peers => SESSION.to_string() + "peers",
            Kind::Repeatability => SESSION.to_string() + "book2",
            Kind::Allreduce(gpus) => allreduce::command(gpus),
        }
    }

    /// Whether its command needs a GPU machine.
    pub fn needs_gpu(self) -> bool {
        self != Kind::Sass
    }
}

/// The GPU session's command, before its stage.
pub(crate) const SESSION: &str = "bench/gpu-session.sh OUTDIR ";

/// Where a stored file stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    /// It describes the book as it is.
    Current,
    /// It exists but describes earlier code, another size or program, or
    /// cannot be read.
    Stale,
    /// It does not exist.
    Missing,
    /// A directive using it names what the book does not have.
    Error,
}

impl State {
    /// `current`, `stale`, `missing`, `error`.
    pub fn word(self) -> &'static str {
        match self {
            State::Current => "current",
            State::Stale => "stale",
            State::Missing => "missing",
            State::Error => "error",
        }
    }
}
