//! Judges the stored evidence the book's directives use
//! ([`Evidence::new`]): each directive is evaluated as its page evaluates
//! it ([`values::evaluate`], with the staleness rules of each kind of
//! [`crate::artifacts`], which also names each file and when and with
//! what it was made), and the value's problem, if
//! any, tells whether the file is missing (it does not exist) or stale (it
//! exists but does not describe the book as it is). The rows it makes are
//! [`crate::evidence`]'s, which the `{{#status}}` page shows; judging them
//! needs the values, which the status page is one of.

use crate::artifacts::{
    Item, StoredFile, allreduce, host, peers, profile, repeatability, sanitizer, sass,
};
use crate::directives::Directive;
use crate::evidence::{Evidence, Row, State, Use};
use crate::figures;
use crate::results::Results;
use crate::values::{self, Value};

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
/// directive that reads no stored evidence besides records. Each kind's
/// module names its file and when it was made; the state is that of the
/// directive's value, as its page evaluates it.
fn items(directive: &Directive, results: &Results<'_>) -> Vec<Item> {
    let stored = results.stored();
    let file = match directive {
        Directive::Profile { id, size, .. } => {
            let Ok(size) = results.size_of(id, size) else {
                return Vec::new();
            };
            profile::stored_file(id, size, stored)
        }
        Directive::Sass(t) | Directive::SassCount { target: t, .. } => {
            sass::stored_file(&t.id, stored)
        }
        Directive::Sanitizer { id, check, size } => {
            let Ok(size) = results.size_of(id, size) else {
                return Vec::new();
            };
            sanitizer::stored_file(id, check, size, stored)
        }
        Directive::Host { id, .. } => {
            // One item per language: each tab's record judged as the
            // panel judges it.
            return match values::evaluate(directive, results) {
                Value::Host(view) => host::items(&view, stored),
                other => {
                    let (state, reason) = judge(&other, true);
                    host::items_without_view(id, state, reason)
                }
            };
        }
        Directive::Allreduce { gpus } | Directive::AllreduceFigure { gpus, .. } => {
            allreduce::stored_file(*gpus, stored)
        }
        Directive::Peers { problem } => peers::stored_file(problem, stored),
        Directive::Repeatability => repeatability::stored_file(stored),
        _ => return Vec::new(),
    };
    let StoredFile { kind, rel, made } = file;
    let (state, reason) = judge(&values::evaluate(directive, results), stored.exists(&rel));
    vec![Item {
        kind,
        rel,
        state,
        reason,
        made: made.map(|(at, tool)| (figures::date(&at).to_string(), tool)),
    }]
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
