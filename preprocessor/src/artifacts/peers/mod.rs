//! `{{#peers PROBLEM}}`: the book's kernel against vendor libraries
//! (chart, table and versions), read from the comparison a GPU session
//! stores in `results/peers/<problem>.json` (`bench/gpu-session.sh OUTDIR
//! peers`).
//!
//! A comparison is current while the keys of the book's kernels it took
//! are their keys now and their own records are current; one that is
//! stale only because those kernels wait to be measured waits, in an
//! author's build, for the GPU machine.

use super::{Kind, StoredFile};
use crate::outcome::Outcome;
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{REMEASURE, StoredError, StoredReports, stale_problem};
use cuda_measured_core::peers::Report;

mod chart;
mod render;
mod scale;
pub use render::{html, markdown, peers_of};

/// A comparison as `cuda-runner peers` writes it, for tests elsewhere.
#[cfg(test)]
pub(crate) fn test_report() -> Report {
    render::tests::peers_report()
}

/// The directive's form, for messages.
pub const FORM: &str = "peers PROBLEM";

/// Why `{{#peers}}`'s arguments are not one problem name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}",
    crate::directive_syntax::usage(
        FORM,
        "one problem name such as sum_f32, read from results/peers/PROBLEM.json"
    )
)]
pub struct ArgsError;

/// `{{#peers PROBLEM}}`'s argument: a problem name as the runner's
/// problems are named (`sum_f32`); it becomes a file name, so nothing that
/// could leave the peers folder.
pub fn parse(args: &[&str]) -> Result<String, ArgsError> {
    match args {
        [problem] if is_problem_name(problem) => Ok(problem.to_string()),
        _ => Err(ArgsError),
    }
}

fn is_problem_name(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The file of `problem`'s comparison under the store.
pub fn relative_path(problem: &str) -> String {
    format!("peers/{problem}.json")
}

/// The comparison of `problem` with its peers, or why there is none.
pub fn read(stored: &StoredReports, problem: &str) -> Result<Report, StoredError> {
    stored.load(&relative_path(problem), "not measured", REMEASURE)
}

/// Evaluates `{{#peers}}`: the stored comparison and whether it is
/// current, or why there is none.
pub fn evaluate(problem: &str, results: &Results<'_>) -> Result<Peers, Shown> {
    let report = read(results.stored(), problem).map_err(|e| Shown::Unmeasured(e.to_string()))?;
    let stale = staleness(&report, results);
    Ok(Peers {
        report,
        file: results.stored().shown(&relative_path(problem)),
        stale,
    })
}

impl Peers {
    /// Why it fails a strict build: it is not current.
    pub fn problem(&self) -> Option<String> {
        stale_problem(&self.file, self.stale.as_deref())
    }
}

/// Whether the comparison is stale only because kernels it took changed
/// and now wait to be measured: the author's pre-GPU build accepts that.
pub fn awaits(problem: &str, results: &Results<'_>) -> bool {
    let waits = |id: &str| {
        results
            .current(id)
            .is_some_and(|(_, outcome)| outcome.state().awaits_measuring())
    };
    if !results.stored().exists(&relative_path(problem)) {
        // Not made yet: it waits when bench/peers/peers.toml lists it (so
        // the GPU session's peers stage makes it) and a kernel it compares
        // waits to be measured itself (a new example and its new peers).
        return listed_ours(problem, results.stored())
            .is_some_and(|ids| ids.iter().any(|id| waits(id)));
    }
    read(results.stored(), problem)
        .is_ok_and(|report| ours_of(&report).iter().any(|(id, _)| waits(id)))
}

/// The book's kernels `bench/peers/peers.toml` names for `problem`, if
/// the file lists it.
fn listed_ours(problem: &str, stored: &StoredReports) -> Option<Vec<String>> {
    let text = stored.book_file(PEERS_TOML).ok()?;
    let config = cuda_measured_core::peers::load_config(std::str::from_utf8(&text).ok()?).ok()?;
    config.get(problem).map(|entry| entry.ours.ids())
}

/// Where the peers of every problem are listed, from the book's root.
const PEERS_TOML: &str = "bench/peers/peers.toml";

/// The file `{{#peers}}` reads, for the status page: made when and with
/// which library versions.
pub fn stored_file(problem: &str, stored: &StoredReports) -> StoredFile {
    StoredFile {
        kind: Kind::Peers,
        rel: relative_path(problem),
        made: read(stored, problem).ok().map(|r| {
            let versions: Vec<String> =
                r.versions.iter().map(|(k, v)| format!("{k} {v}")).collect();
            (r.measured_at, versions.join(", "))
        }),
    }
}

/// A `{{#peers}}` comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Peers {
    /// The stored comparison.
    pub report: Report,
    /// Its file as shown in messages (`results/peers/sum_f32.json`).
    pub file: String,
    /// Why it no longer describes the book's kernel (`measured for an
    /// earlier version of reductions/fast_reduce`), or `None` when current.
    pub stale: Option<String>,
}

/// Why a stored comparison no longer describes the book's kernel: the
/// example is gone, its code changed since (another key), or its own
/// record is not current.
pub(crate) fn staleness(report: &Report, results: &Results<'_>) -> Option<String> {
    ours_of(report).into_iter().find_map(|(id, stored_key)| {
        let Some((key, outcome)) = results.current(&id) else {
            return Some(format!("{id} is not an example of this book"));
        };
        if key != stored_key {
            return Some(format!("measured for an earlier version of {id}"));
        }
        match outcome {
            Outcome::Fresh(_) | Outcome::Unstored { .. } => None,
            Outcome::Stale(_) => Some(format!("measured for an earlier version of {id}")),
            Outcome::Missing => Some(format!("{id} itself is not measured")),
            Outcome::Broken(_) => Some(format!("{id} cannot be run")),
        }
    })
}

/// The book's kernels a comparison took, with the keys they had: every
/// candidate of a best-of comparison, else its one kernel.
fn ours_of(report: &Report) -> Vec<(String, String)> {
    if report.ours_keys.is_empty() {
        vec![(report.ours_example.clone(), report.ours_key.clone())]
    } else {
        report
            .ours_keys
            .iter()
            .map(|(id, key)| (id.clone(), key.clone()))
            .collect()
    }
}

#[cfg(test)]
mod flops_tests;
#[cfg(test)]
mod tests;
