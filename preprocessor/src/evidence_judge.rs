//! Judges the stored evidence the book's directives use
//! ([`Evidence::new`]): each directive is evaluated as its page evaluates
//! it ([`values::evaluate`], with the staleness rules of
//! [`crate::sass_view`], [`crate::sanitizer_view`], [`crate::host_view`],
//! [`crate::allreduce_view`] and [`values`]), and the value's problem, if
//! any, tells whether the file is missing (it does not exist) or stale (it
//! exists but does not describe the book as it is). The rows it makes are
//! [`crate::evidence`]'s, which the `{{#status}}` page shows; judging them
//! needs the values, which the status page is one of.

use crate::directives::Directive;
use crate::evidence::{Evidence, Kind, Row, State, Use};
use crate::figures;
use crate::host_view::TabState;
use crate::results::Results;
use crate::values::{self, Value};
use cuda_measured_core::{profile, sanitizer, sass};

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
