//! `{{#host ID SIZE}}`: the host side of an example in three languages.
//! The programs of `bench/host/` (CUDA C++, Python with CuPy, Rust with
//! cudarc) are read from the book as they are now; what each printed when
//! `bench/host/run_hosts.py` ran it for the example at SIZE (on a GPU
//! machine: `bench/gpu-session.sh OUTDIR host`) is read from
//! `results/host/<id>/<language>.json`.
//!
//! A record is current while its key is the example's key, its size the
//! directive's, and its program's SHA-256 that of the program file now. A
//! missing or stale record is a problem for strict builds and waits, in an
//! author's build, for the GPU machine; an id the book does not have, a
//! size the example does not declare, an example the GPU session cannot
//! run (it runs `kernels/ID.cu`) or the programs cannot launch (they
//! launch one kernel taking `input`, `out` and `n`), or a program that
//! cannot be read is a mistake, reported at its line.

use super::{Item, Kind, State};
use crate::directive_syntax::usage as form_usage;
use crate::figures;
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{StoredError, StoredReports};
use cuda_measured_core::example::Example;
use cuda_measured_core::host::{self, KERNEL_ARGS, LANGUAGES, Language, Record};
use cuda_measured_core::size::Size;

mod render;
pub use render::{html, markdown};

/// How to run the host programs again.
pub const REHOST: &str =
    "run `bench/gpu-session.sh OUTDIR host` on a GPU machine and commit results/host/";

/// How to write `{{#host}}`, for a directive misused.
pub fn usage() -> String {
    form_usage(
        "host ID SIZE",
        "the host programs of bench/host for example ID at SIZE, e.g. {{#host exercise/reduction/stage3_solution 2^22}}",
    )
}

/// What the host program in `language` printed for example `id`, or why
/// there is no record.
pub fn read(stored: &StoredReports, id: &str, language: &str) -> Result<Record, StoredError> {
    stored.load(&host::relative_path(id, language), "not run yet", REHOST)
}

/// What a `{{#host}}` says of each language's record, for the status
/// page: each tab's record judged as the panel judges it.
pub fn items(view: &HostView, stored: &StoredReports) -> Vec<Item> {
    view.tabs
        .iter()
        .map(|tab| {
            let rel = host::relative_path(&view.id, tab.language.key);
            let state = match tab.state() {
                TabState::Passed | TabState::Failed => State::Current,
                TabState::Stale => State::Stale,
                TabState::NotRun if stored.exists(&rel) => State::Stale,
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

/// The same when the directive shows no panel (a mistake, or programs
/// that cannot be read): every language's record in the one `state`.
pub fn items_without_view(id: &str, state: State, reason: Option<String>) -> Vec<Item> {
    LANGUAGES
        .iter()
        .map(|l| Item {
            kind: Kind::Host,
            rel: host::relative_path(id, l.key),
            state,
            reason: reason.clone(),
            made: None,
        })
        .collect()
}

/// A `{{#host}}` as a page shows it: one tab per language.
#[derive(Debug, Clone, PartialEq)]
pub struct HostView {
    /// The example id.
    pub id: String,
    /// The size.
    pub size: Size,
    /// One tab per language, in [`LANGUAGES`] order.
    pub tabs: Vec<Tab>,
}

/// One language's program and what it printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Tab {
    /// The language.
    pub language: Language,
    /// The program's text now.
    pub code: String,
    /// The record's file as messages show it.
    pub file: String,
    /// Its run, or why there is none (`not run yet: ...`).
    pub run: Result<Run, StoredError>,
}

/// A stored run of one program.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The record.
    pub record: Record,
    /// Why it no longer describes the example or the program, or `None`
    /// when current.
    pub stale: Option<String>,
}

impl HostView {
    /// Why this makes a strict build fail: the tabs' records that are
    /// missing or stale, each with its reason.
    pub fn problem(&self) -> Option<String> {
        let reasons: Vec<String> = self.tabs.iter().filter_map(Tab::problem).collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }

    /// `exercise/reduction/stage3_solution at N = 2^22`.
    pub fn subject(&self) -> String {
        format!("{} at N = {}", self.id, self.size)
    }

    /// A name for the panel's radio buttons and their ids, unique to the
    /// example and size: `cm-host-exercise-reduction-stage3_solution-4194304`.
    pub fn group(&self) -> String {
        let slug: String = self
            .id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        format!("cm-host-{slug}-{}", self.size.0)
    }

    /// The panel's accent: `pass` when every program ran current and
    /// passed, `wrong` when a current run failed, else `missing`.
    pub fn state(&self) -> &'static str {
        let states: Vec<TabState> = self.tabs.iter().map(Tab::state).collect();
        if states.iter().all(|s| *s == TabState::Passed) {
            "pass"
        } else if states.contains(&TabState::Failed) {
            "wrong"
        } else {
            "missing"
        }
    }
}

/// Where one tab stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabState {
    /// Current, and its check passed.
    Passed,
    /// Current, and it failed (exit status or check).
    Failed,
    /// Run for earlier code or an earlier program.
    Stale,
    /// Not run yet.
    NotRun,
}

impl Tab {
    /// Why this tab fails a strict build: its record is missing or stale.
    pub fn problem(&self) -> Option<String> {
        match &self.run {
            Ok(run) => run.stale.clone(),
            Err(reason) => Some(reason.to_string()),
        }
    }

    /// Where it stands.
    pub fn state(&self) -> TabState {
        match &self.run {
            Err(_) => TabState::NotRun,
            Ok(run) if run.stale.is_some() => TabState::Stale,
            Ok(run) if run.record.pass => TabState::Passed,
            Ok(_) => TabState::Failed,
        }
    }

    /// The mark after the tab's name: `✓`, `✗`, `(stale)`, `(not run)`.
    pub fn mark(&self) -> &'static str {
        match self.state() {
            TabState::Passed => "✓",
            TabState::Failed => "✗",
            TabState::Stale => "(stale)",
            TabState::NotRun => "(not run)",
        }
    }
}

impl Run {
    /// `exit 0, check passed` or `exit 1, check failed`.
    pub fn verdict(&self) -> String {
        let r = &self.record;
        format!(
            "exit {}, check {}",
            r.exit_code,
            if r.pass { "passed" } else { "failed" }
        )
    }

    /// `nvcc 13.0.88 · NVIDIA H200 · run 2026-12-01`.
    pub fn facts(&self) -> String {
        let r = &self.record;
        format!("{} · {} · run {}", r.tool, r.gpu, figures::date(&r.made_at))
    }
}

/// Evaluates `{{#host}}`.
pub fn evaluate(
    id: &str,
    size: cuda_measured_core::dims::Dims,
    results: &Results<'_>,
) -> Result<HostView, Shown> {
    let Some((example, key)) = results.example(id) else {
        return Err(Shown::Mistake(results.unknown_id(id).to_string()));
    };
    if let Some(mistake) = crate::names::undeclared_size(example, size)
        .or_else(|| crate::names::not_a_kernel_file(example, "{{#host}}"))
        .or_else(|| unlaunchable(example))
    {
        return Err(Shown::Mistake(mistake));
    }
    // The host programs launch (input, out, n): one dimension.
    let size = Size(size.n_value());
    let mut tabs = Vec::new();
    for language in LANGUAGES {
        let bytes = match results.stored().book_file(language.program) {
            Ok(bytes) => bytes,
            Err(reason) => {
                return Err(Shown::Mistake(format!(
                    "{reason}: {{{{#host}}}} shows the host programs of bench/host"
                )));
            }
        };
        let file = results
            .stored()
            .shown(&host::relative_path(id, language.key));
        let run = read(results.stored(), id, language.key).map(|record| {
            let stale = staleness(&record, &language, &bytes, id, key, size, &file);
            Run { record, stale }
        });
        tabs.push(Tab {
            language,
            code: String::from_utf8_lossy(&bytes).into_owned(),
            file,
            run,
        });
    }
    Ok(HostView {
        id: id.to_string(),
        size,
        tabs,
    })
}

/// Whether a `{{#host}}` waits only for the GPU machine's host stage: the
/// directive names an example the programs can run at a size it declares
/// and the programs can be read, so that every record missing, unreadable
/// or stale is settled by running them.
pub fn awaits_runs(id: &str, size: cuda_measured_core::dims::Dims, results: &Results<'_>) -> bool {
    evaluate(id, size, results).is_ok()
}

/// Why the host programs cannot launch `example`: they launch one kernel
/// with `(input, out, n)`, as `run_hosts.py` requires.
fn unlaunchable(example: &Example) -> Option<String> {
    let launches = &example.declaration.launches;
    match launches.as_slice() {
        [one] if one.args == KERNEL_ARGS => None,
        [one] => Some(format!(
            "`{}` launches `{}` with ({}): the host programs of bench/host launch one kernel with ({}), so {{{{#host}}}} shows examples of one such launch",
            example.id,
            one.kernel,
            one.args.join(", "),
            KERNEL_ARGS.join(", ")
        )),
        _ => Some(format!(
            "`{}` has {} launches: the host programs of bench/host launch one kernel with ({}), so {{{{#host}}}} shows examples of one such launch",
            example.id,
            launches.len(),
            KERNEL_ARGS.join(", ")
        )),
    }
}

/// Why `record` no longer describes the example, the size or the program.
fn staleness(
    record: &Record,
    language: &Language,
    program: &[u8],
    id: &str,
    key: &str,
    size: Size,
    file: &str,
) -> Option<String> {
    if record.example != id || record.language != language.key {
        Some(format!(
            "{file} holds the {} run of `{}`, not the {} run of `{id}`; {REHOST}",
            record.language, record.example, language.key
        ))
    } else if record.key != key {
        Some(format!(
            "{file} was run on an earlier version of `{id}`; {REHOST}"
        ))
    } else if record.n != size {
        Some(format!(
            "{file} was run at N = {}, not {size}; {REHOST}",
            record.n
        ))
    } else if record.program_sha256 != host::program_sha256(program) {
        Some(format!(
            "{file} was run with an earlier version of {}; {REHOST}",
            language.program
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
