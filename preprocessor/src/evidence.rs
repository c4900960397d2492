//! The stored evidence the pages use besides the examples' records, for
//! `mdbook-cuda status` and the `{{#status}}` page: Nsight Compute
//! profiles (`{{#profile}}`), SASS listings (`{{#sass}}`,
//! `{{#sass_count}}`), compute-sanitizer reports (`{{#sanitizer}}`),
//! host-program runs (`{{#host}}`, one file per language), the peers
//! comparisons (`{{#peers}}`), the repeatability report
//! (`{{#repeatability}}`) and the all-reduce reports (`{{#allreduce}}`,
//! `{{#allreduce_figure}}`). One row per stored file, with where the book
//! uses it, its date and tool, and its state.
//!
//! The state is never judged here: each directive is evaluated as its page
//! evaluates it ([`values::evaluate`], with the staleness rules of
//! [`crate::sass_view`], [`crate::sanitizer_view`], [`crate::host_view`],
//! [`crate::allreduce_view`] and [`values`]), and the value's problem, if
//! any, tells whether the file is missing (it does not exist) or stale (it
//! exists but does not describe the book as it is).

use crate::directives::Directive;
use crate::figures;
use crate::host_view::TabState;
use crate::results::Results;
use crate::values::{self, Value};
use cuda_measured_core::{profile, sanitizer, sass};

mod sections;
mod uses;
pub use sections::{section_anchors, section_at};
pub use uses::uses;

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
            Kind::Allreduce(gpus) => crate::stored::allreduce_command(gpus),
        }
    }

    /// Whether its command needs a GPU machine.
    pub fn needs_gpu(self) -> bool {
        self != Kind::Sass
    }
}

/// The GPU session's command, before its stage.
const SESSION: &str = "bench/gpu-session.sh OUTDIR ";

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

/// A directive of the book and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Use {
    /// The directive.
    pub directive: Directive,
    /// `src/ch.md:12`.
    pub place: String,
    /// Index of its chapter.
    pub chapter: usize,
    /// The `id` of the heading of the section it is in, if any.
    pub section: Option<String>,
}

/// One stored file on the status page.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Its kind.
    pub kind: Kind,
    /// Its path as messages show it (`results/sass/r/tree.json`).
    pub file: String,
    /// Its state: the worst of its uses.
    pub state: State,
    /// Why it is not current, as the build says it.
    pub reason: Option<String>,
    /// Where the book uses it, in reading order, each once.
    pub places: Vec<String>,
    /// The chapter of its first use.
    pub chapter: usize,
    /// The section of its first use.
    pub section: Option<String>,
    /// The link to that section from the status page, once
    /// [`Evidence::link_from`] has set it.
    pub href: Option<String>,
    /// The day it was made (`2026-05-01`).
    pub date: Option<String>,
    /// The tool that made it (`ncu 2025.3`).
    pub tool: Option<String>,
}

/// Every stored file the book's directives use, grouped by kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evidence {
    /// Rows by kind, then in reading order of first use.
    pub rows: Vec<Row>,
}

/// What one directive says of one file.
struct Item {
    kind: Kind,
    rel: String,
    state: State,
    reason: Option<String>,
    made: Option<(String, String)>,
}

impl Evidence {
    /// The files `uses` read, each judged as its directive judges it.
    pub fn new(uses: &[Use], results: &Results<'_>) -> Self {
        let mut rows: Vec<Row> = Vec::new();
        for u in uses {
            for item in items(&u.directive, results) {
                let file = results.stored().shown(&item.rel);
                if let Some(row) = rows.iter_mut().find(|r| r.file == file) {
                    if !row.places.contains(&u.place) {
                        row.places.push(u.place.clone());
                    }
                    if item.state > row.state {
                        row.state = item.state;
                        row.reason = item.reason;
                    }
                    continue;
                }
                let (date, tool) = item.made.unzip();
                rows.push(Row {
                    kind: item.kind,
                    file,
                    state: item.state,
                    reason: item.reason,
                    places: vec![u.place.clone()],
                    chapter: u.chapter,
                    section: u.section.clone(),
                    href: None,
                    date,
                    tool,
                });
            }
        }
        rows.sort_by_key(|r| r.kind);
        Evidence { rows }
    }

    /// Sets each row's link to the section that uses it, as seen from the
    /// chapter `page` (see [`crate::status_page::StatusPage::link_from`]).
    pub fn link_from(&mut self, chapters: &[&std::path::Path], page: &std::path::Path) {
        for row in &mut self.rows {
            row.href = chapters
                .get(row.chapter)
                .map(|c| crate::status_page::link(c, page, row.section.as_deref()));
        }
    }

    /// `9 stored files: 6 current, 2 stale, 1 missing`.
    pub fn summary(&self) -> String {
        let states = [State::Current, State::Stale, State::Missing, State::Error];
        let counts: Vec<String> = states
            .iter()
            .filter_map(|s| {
                let n = self.rows.iter().filter(|r| r.state == *s).count();
                (n > 0).then(|| format!("{n} {}", s.word()))
            })
            .collect();
        let total = self.rows.len();
        let noun = if total == 1 { "file" } else { "files" };
        format!("{total} stored evidence {noun}: {}", counts.join(", "))
    }

    /// `run scripts/sass; on a GPU machine, bench/gpu-session.sh OUTDIR
    /// profile|host; on a machine with 2 GPUs, cuda-runner allreduce
    /// --gpus 2`: what makes the rows that are not current, or `None`.
    pub fn remedy(&self) -> Option<String> {
        let mut kinds: Vec<Kind> = self
            .rows
            .iter()
            .filter(|r| matches!(r.state, State::Stale | State::Missing))
            .map(|r| r.kind)
            .collect();
        kinds.dedup();
        let local: Vec<String> = kinds
            .iter()
            .filter(|k| !k.needs_gpu())
            .map(|k| k.command())
            .collect();
        let commands: Vec<String> = kinds.iter().map(|k| k.command()).collect();
        let gpu: Vec<&str> = commands
            .iter()
            .filter_map(|c| c.strip_prefix(SESSION))
            .collect();
        let machines: Vec<String> = kinds
            .iter()
            .filter_map(|k| match k {
                Kind::Allreduce(gpus) => Some(format!(
                    "on a machine with {}, run {}",
                    crate::allreduce_view::gpu_count(*gpus),
                    k.command()
                )),
                _ => None,
            })
            .collect();
        let mut parts = Vec::new();
        if !local.is_empty() {
            parts.push(format!("run {} (no GPU needed)", local.join(", ")));
        }
        if !gpu.is_empty() {
            parts.push(format!(
                "on a GPU machine, run bench/gpu-session.sh OUTDIR {}",
                gpu.join("|")
            ));
        }
        parts.extend(machines);
        (!parts.is_empty()).then(|| format!("To make them: {}.", parts.join("; ")))
    }
}

/// The files `directive` reads, with what it says of each; none for a
/// directive that reads no stored evidence besides records.
fn items(directive: &Directive, results: &Results<'_>) -> Vec<Item> {
    let stored = results.stored();
    let target = cuda_measured_core::limits::KnownGpu::target().name;
    let (kind, rel, made) = match directive {
        Directive::Profile { id, size, .. } => {
            let Ok(size) = results.size_of(id, size) else {
                return Vec::new();
            };
            (
                Kind::Profile,
                profile::relative_path(id, size, target),
                stored
                    .profile(id, size)
                    .ok()
                    .map(|p| (p.measured_at, p.tool)),
            )
        }
        Directive::Sass(t) | Directive::SassCount { target: t, .. } => (
            Kind::Sass,
            sass::relative_path(&t.id),
            stored.sass(&t.id).ok().map(|l| (l.made_at, l.tool)),
        ),
        Directive::Sanitizer { id, check, size } => {
            let Ok(size) = results.size_of(id, size) else {
                return Vec::new();
            };
            (
                Kind::Sanitizer,
                sanitizer::relative_path(id, check, size),
                stored
                    .sanitizer(id, check, size)
                    .ok()
                    .map(|r| (r.made_at, r.tool)),
            )
        }
        Directive::Host { id, .. } => return host_items(directive, id, results),
        Directive::Allreduce { gpus } | Directive::AllreduceFigure { gpus, .. } => (
            Kind::Allreduce(*gpus),
            cuda_measured_core::allreduce::report::relative_path(target, *gpus),
            stored.allreduce(*gpus).ok().map(|r| {
                let nccl = r.software.nccl.map(|v| format!(", NCCL {v}"));
                (
                    r.measured_at,
                    format!("cuda-runner {}{}", r.runner, nccl.unwrap_or_default()),
                )
            }),
        ),
        Directive::Peers { problem } => (
            Kind::Peers,
            format!("peers/{problem}.json"),
            stored.peers(problem).ok().map(|r| {
                let versions: Vec<String> =
                    r.versions.iter().map(|(k, v)| format!("{k} {v}")).collect();
                (r.measured_at, versions.join(", "))
            }),
        ),
        Directive::Repeatability => (
            Kind::Repeatability,
            "repeatability.json".to_string(),
            stored.repeatability().ok().map(|r| {
                (
                    r.measured_at,
                    format!("cuda-runner, method v{}", r.method_version),
                )
            }),
        ),
        _ => return Vec::new(),
    };
    let (state, reason) = judge(&values::evaluate(directive, results), stored.exists(&rel));
    vec![Item {
        kind,
        rel,
        state,
        reason,
        made: made.map(|(at, tool)| (figures::date(&at).to_string(), tool)),
    }]
}

/// One item per language of a `{{#host}}`: each tab's record judged as
/// the panel judges it.
fn host_items(directive: &Directive, id: &str, results: &Results<'_>) -> Vec<Item> {
    use cuda_measured_core::host;
    let value = values::evaluate(directive, results);
    let Value::Host(view) = value else {
        let (state, reason) = judge(&value, true);
        return host::LANGUAGES
            .iter()
            .map(|l| Item {
                kind: Kind::Host,
                rel: host::relative_path(id, l.key),
                state,
                reason: reason.clone(),
                made: None,
            })
            .collect();
    };
    view.tabs
        .iter()
        .map(|tab| {
            let rel = host::relative_path(id, tab.language.key);
            let state = match tab.state() {
                TabState::Passed | TabState::Failed => State::Current,
                TabState::Stale => State::Stale,
                TabState::NotRun if results.stored().exists(&rel) => State::Stale,
                TabState::NotRun => State::Missing,
            };
            Item {
                kind: Kind::Host,
                rel,
                state,
                reason: tab.problem(),
                made: tab.run.as_ref().ok().map(|r| {
                    (
                        figures::date(&r.record.made_at).to_string(),
                        r.record.tool.clone(),
                    )
                }),
            }
        })
        .collect()
}

/// The state a directive's value gives its file, which `exists` or not,
/// and why it is not current.
fn judge(value: &Value, exists: bool) -> (State, Option<String>) {
    match value {
        Value::Mistake(reason) => (State::Error, Some(reason.clone())),
        other => match other.problem() {
            None => (State::Current, None),
            Some(reason) if exists => (State::Stale, Some(reason)),
            Some(reason) => (State::Missing, Some(reason)),
        },
    }
}

#[cfg(test)]
mod tests;
