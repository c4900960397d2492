//! Evaluates directives against the book's settled outcomes and stored
//! reports: the figure a `{{#measured}}` or `{{#ceiling}}` shows, a ratio,
//! the rungs of a ladder, the GPU name, the peers comparison and the
//! repeatability report, or why the data is not there. Renderers turn
//! these values into HTML or markdown; a value that is not measured or not
//! current is a problem for strict builds.

use crate::catalog::Catalog;
use crate::directives::{CeilingField, Directive, Field};
use crate::figures;
use crate::outcome::Outcome;
use crate::stored::StoredReports;
use cuda_runner::record::{Record, SizeResult, Status};
use cuda_runner::size::Size;
use cuda_runner::{peers, repeatability};
use std::collections::BTreeMap;

/// The book's results, by example id, and its stored reports.
#[derive(Debug, Clone, Copy)]
pub struct Results<'a> {
    catalog: &'a Catalog,
    outcomes: &'a [Outcome],
    stored: &'a StoredReports,
}

impl<'a> Results<'a> {
    /// Results of `catalog`'s entries (`outcomes` in the same order), with
    /// the reports in `stored`.
    pub fn new(catalog: &'a Catalog, outcomes: &'a [Outcome], stored: &'a StoredReports) -> Self {
        Results {
            catalog,
            outcomes,
            stored,
        }
    }

    /// The book's examples.
    pub fn catalog(&self) -> &'a Catalog {
        self.catalog
    }

    /// Their outcomes, in catalog order.
    pub fn outcomes(&self) -> &'a [Outcome] {
        self.outcomes
    }

    /// The current key of example `id` and its outcome, when the book has it.
    fn current(&self, id: &str) -> Option<(&'a str, &'a Outcome)> {
        let index = self.catalog.by_id(id)?;
        let resolved = self.catalog.entries[index].resolved.as_ref().ok()?;
        Some((resolved.key.as_str(), &self.outcomes[index]))
    }

    /// The current record of `id`, or why there is none.
    pub fn record(&self, id: &str) -> Result<&'a Record, String> {
        let index = self
            .catalog
            .by_id(id)
            .ok_or_else(|| format!("no example with id `{id}` in this book"))?;
        match &self.outcomes[index] {
            Outcome::Fresh(r) => Ok(r),
            Outcome::Stale(_) => Err(format!(
                "`{id}` was measured for an earlier version of its code"
            )),
            Outcome::Missing => Err(format!("`{id}` is not measured yet")),
            Outcome::Broken(_) => Err(format!("`{id}` is broken, see its panel")),
        }
    }

    /// The current figures of `id` at `size`, or why there are none.
    pub fn at(&self, id: &str, size: Size) -> Result<(&'a Record, &'a SizeResult), String> {
        let record = self.record(id)?;
        record
            .sizes
            .iter()
            .find(|s| s.n == size)
            .map(|s| (record, s))
            .ok_or_else(|| format!("`{id}` has no timed result at N = {size}"))
    }

    /// The GPU most current records were measured on.
    pub fn gpu_name(&self) -> Result<String, String> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for record in self.outcomes.iter().filter_map(Outcome::fresh) {
            if let Some(gpu) = &record.gpu {
                *counts.entry(gpu.name.as_str()).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by_key(|&(name, count)| (count, std::cmp::Reverse(name)))
            .map(|(name, _)| name.to_string())
            .ok_or_else(|| "no example of this book has a current result measured on a GPU".into())
    }
}

/// What a directive evaluates to.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A figure as text, with a tooltip saying where it comes from.
    Figure {
        /// `251.2 µs`.
        text: String,
        /// `r/tree at N = 2^28 on NVIDIA H200`.
        title: String,
    },
    /// A bar chart.
    Ladder(Ladder),
    /// The book's kernel against vendor libraries.
    Peers(Box<Peers>),
    /// Two measuring runs compared.
    Repeatability(Box<repeatability::Report>),
    /// Data that is not (currently) measured.
    Unmeasured(String),
}

/// A `{{#peers}}` comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Peers {
    /// The stored comparison.
    pub report: peers::Report,
    /// Its file as shown in messages (`results/peers/sum_f32.json`).
    pub file: String,
    /// Why it no longer describes the book's kernel (`measured for an
    /// earlier version of reductions/fast_reduce`), or `None` when current.
    pub stale: Option<String>,
}

/// A `{{#ladder}}` chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Ladder {
    /// The size compared.
    pub size: Size,
    /// GPU name and datasheet peak, from the first measured rung.
    pub gpu: Option<(String, f64)>,
    /// One rung per example, in the order written.
    pub rungs: Vec<Rung>,
}

/// One bar of a ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    /// Example id.
    pub id: String,
    /// Bandwidth, percent of peak and status, or why there are none.
    pub figure: Result<(f64, f64, Status), String>,
}

impl Value {
    /// Why this value makes a strict build fail, if it does.
    pub fn problem(&self) -> Option<String> {
        match self {
            Value::Figure { .. } | Value::Repeatability(_) => None,
            Value::Unmeasured(reason) => Some(reason.clone()),
            Value::Peers(p) => p.stale.as_ref().map(|reason| {
                format!(
                    "{}: {reason}; run bench/gpu-session.sh on a GPU machine",
                    p.file
                )
            }),
            Value::Ladder(ladder) => {
                let reasons: Vec<&str> = ladder
                    .rungs
                    .iter()
                    .filter_map(|r| r.figure.as_ref().err().map(String::as_str))
                    .collect();
                (!reasons.is_empty()).then(|| reasons.join("; "))
            }
        }
    }
}

/// Evaluates a parsed directive.
pub fn evaluate(directive: &Directive, results: &Results<'_>) -> Value {
    match directive {
        Directive::Measured { id, field, size } => {
            let figure = results
                .at(id, *size)
                .and_then(|(record, s)| Ok((measured_text(*field, s, id)?, record)));
            match figure {
                Ok((text, record)) => Value::Figure {
                    text,
                    title: source_title(id, *size, record),
                },
                Err(reason) => Value::Unmeasured(reason),
            }
        }
        Directive::Ratio { a, b, size } => match (results.at(a, *size), results.at(b, *size)) {
            (Ok((ra, sa)), Ok((_, sb))) => Value::Figure {
                text: figures::ratio(sa.median_us / sb.median_us),
                title: format!(
                    "time of {a} over time of {b}: {} / {}, {}",
                    figures::time_us(sa.median_us),
                    figures::time_us(sb.median_us),
                    source_title("both", *size, ra)
                ),
            },
            (Err(reason), _) | (_, Err(reason)) => Value::Unmeasured(reason),
        },
        Directive::Ladder { size, ids } => {
            let rungs: Vec<Rung> = ids
                .iter()
                .map(|id| Rung {
                    id: id.clone(),
                    figure: results
                        .at(id, *size)
                        .map(|(r, s)| (s.gbs, s.pct_peak, r.status)),
                })
                .collect();
            let gpu = ids
                .iter()
                .filter_map(|id| results.at(id, *size).ok())
                .find_map(|(r, _)| r.gpu.as_ref())
                .map(|g| (g.name.clone(), g.peak_gbs));
            Value::Ladder(Ladder {
                size: *size,
                gpu,
                rungs,
            })
        }
        Directive::Ceiling { id, field } => ceiling(id, *field, results),
        Directive::Gpu => match results.gpu_name() {
            Ok(name) => Value::Figure {
                title: "the GPU this book's results were measured on".into(),
                text: name,
            },
            Err(reason) => Value::Unmeasured(reason),
        },
        Directive::Peers { problem } => match results.stored.peers(problem) {
            Ok(report) => {
                let stale = peers_staleness(&report, results);
                Value::Peers(Box::new(Peers {
                    report,
                    file: results.stored.shown(&format!("peers/{problem}.json")),
                    stale,
                }))
            }
            Err(reason) => Value::Unmeasured(reason),
        },
        Directive::Repeatability => match results.stored.repeatability() {
            Ok(report) => Value::Repeatability(Box::new(report)),
            Err(reason) => Value::Unmeasured(reason),
        },
    }
}

/// The text of one `{{#measured}}` figure, or why the record lacks it.
fn measured_text(field: Field, s: &SizeResult, id: &str) -> Result<String, String> {
    let lacks = |what: &str| format!("`{id}` has no {what} at N = {}", s.n);
    Ok(match field {
        Field::Time => figures::time_us(s.median_us),
        Field::Gbs => figures::gbs(s.gbs),
        Field::PctPeak => figures::percent(s.pct_peak),
        Field::PctCeiling => figures::percent(
            s.pct_ceiling
                .ok_or_else(|| lacks("% of the read ceiling"))?,
        ),
        Field::Hot => format!(
            "{} (hot)",
            figures::time_us(s.hot_median_us.ok_or_else(|| lacks("hot figure"))?)
        ),
        Field::Spread => figures::spread(s.rel_spread),
        Field::Samples => s.samples.to_string(),
        Field::Error => figures::error(s.error),
    })
}

/// A `{{#ceiling}}` figure from the current record of `id`.
fn ceiling(id: &str, field: CeilingField, results: &Results<'_>) -> Value {
    let record = match results.record(id) {
        Ok(record) => record,
        Err(reason) => return Value::Unmeasured(reason),
    };
    let Some(c) = &record.ceilings else {
        return Value::Unmeasured(format!(
            "`{id}` has no ceilings in its record: measure it again"
        ));
    };
    let (what, text) = match field {
        CeilingField::Read => ("read ceiling", figures::gbs(c.read_gbs)),
        CeilingField::Copy => ("copy ceiling", figures::gbs(c.copy_gbs)),
        CeilingField::Floor => ("launch floor", figures::time_us(c.launch_floor_us)),
    };
    let gpu = record.gpu.as_ref().map_or("no GPU", |g| g.name.as_str());
    Value::Figure {
        text,
        title: format!(
            "{what} measured alongside {id} on {gpu}, measured {}",
            figures::date(&record.measured_at)
        ),
    }
}

/// Why a stored comparison no longer describes the book's kernel: the
/// example is gone, its code changed since (another key), or its own
/// record is not current.
fn peers_staleness(report: &peers::Report, results: &Results<'_>) -> Option<String> {
    let id = &report.ours_example;
    let Some((key, outcome)) = results.current(id) else {
        return Some(format!("{id} is not an example of this book"));
    };
    if key != report.ours_key {
        return Some(format!("measured for an earlier version of {id}"));
    }
    match outcome {
        Outcome::Fresh(_) => None,
        Outcome::Stale(_) => Some(format!("measured for an earlier version of {id}")),
        Outcome::Missing => Some(format!("{id} itself is not measured")),
        Outcome::Broken(_) => Some(format!("{id} cannot be run")),
    }
}

fn source_title(id: &str, size: Size, record: &Record) -> String {
    let gpu = record.gpu.as_ref().map_or("no GPU", |g| g.name.as_str());
    format!(
        "{id} at N = {size} on {gpu}, measured {}",
        figures::date(&record.measured_at)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ChapterText;
    use crate::test_support::{KERNEL, record, settings_in};
    use cuda_runner::declaration::Expectation;
    use cuda_runner::measure::Ceilings;

    /// A book with examples `fast` (fresh, with ceilings, a hot figure and
    /// % of ceiling), `slow` (fresh, twice the time, none of those) and
    /// `old` (stale), and an empty folder of stored reports.
    struct Book {
        dir: tempfile::TempDir,
        catalog: Catalog,
        outcomes: Vec<Outcome>,
        stored: StoredReports,
    }

    impl Book {
        fn new() -> Self {
            let (dir, settings) = settings_in(&[]);
            let text: String = ["fast", "slow", "old"]
                .iter()
                .map(|id| format!("```cuda run id={id}\n{KERNEL}```\n\n"))
                .collect();
            let catalog = Catalog::build(
                &settings,
                &[ChapterText {
                    source_path: "ch.md".into(),
                    content: text,
                }],
            );
            let plain = record(Status::Pass, Expectation::Pass);
            let mut fast = plain.clone();
            fast.sizes[0].pct_ceiling = Some(99.81);
            fast.sizes[0].hot_median_us = Some(239.31);
            fast.sizes[0].rel_spread = 0.0034;
            fast.sizes[0].samples = 45;
            fast.ceilings = Some(Ceilings {
                read_gbs: 4328.2,
                copy_gbs: 3936.5,
                launch_floor_us: 2.784,
                buffer_bytes: 1 << 30,
            });
            let mut slow = plain.clone();
            slow.sizes[0].median_us *= 2.0;
            slow.sizes[0].gbs /= 2.0;
            slow.sizes[0].pct_peak /= 2.0;
            let outcomes = vec![
                Outcome::Fresh(fast),
                Outcome::Fresh(slow),
                Outcome::Stale(plain),
            ];
            let stored = StoredReports::new(&settings.results, "results");
            Book {
                dir,
                catalog,
                outcomes,
                stored,
            }
        }

        fn results(&self) -> Results<'_> {
            Results::new(&self.catalog, &self.outcomes, &self.stored)
        }

        fn key_of(&self, id: &str) -> String {
            self.results().current(id).unwrap().0.to_string()
        }

        /// Stores a peers comparison of `ours` measured with `key`.
        fn store_peers(&self, problem: &str, ours: &str, key: &str) {
            let report = serde_json::json!({
                "schema": 1, "problem": "sum_f32", "ours_example": ours, "ours_key": key,
                "gpu": "NVIDIA H200", "peak_gbs": 4800.0, "ceilings": null, "versions": {},
                "measured_at": "2026-05-01T12:00:00Z", "rows": []
            });
            let path = self
                .dir
                .path()
                .join(format!("results/peers/{problem}.json"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, report.to_string()).unwrap();
        }
    }

    fn text_of(value: Value) -> String {
        match value {
            Value::Figure { text, .. } => text,
            other => panic!("not a figure: {other:?}"),
        }
    }

    fn measured(id: &str, field: Field, size: Size) -> Directive {
        Directive::Measured {
            id: id.into(),
            field,
            size,
        }
    }

    // Each directive reads the current records and formats like the panels.
    #[test]
    fn figures_from_current_records() {
        let book = Book::new();
        let results = book.results();
        let n = Size(1 << 28);
        let ceiling = |field| Directive::Ceiling {
            id: "fast".into(),
            field,
        };
        let cases = [
            (measured("fast", Field::Time, n), "251.2 µs"),
            (measured("fast", Field::Gbs, n), "4275 GB/s"),
            (measured("fast", Field::PctPeak, n), "89.1%"),
            (measured("fast", Field::PctCeiling, n), "99.8%"),
            (measured("fast", Field::Hot, n), "239.3 µs (hot)"),
            (measured("fast", Field::Spread, n), "0.34%"),
            (measured("fast", Field::Samples, n), "45"),
            (measured("fast", Field::Error, n), "3.1e-08"),
            (
                Directive::Ratio {
                    a: "slow".into(),
                    b: "fast".into(),
                    size: n,
                },
                "2.00×",
            ),
            (ceiling(CeilingField::Read), "4328 GB/s"),
            (ceiling(CeilingField::Copy), "3936 GB/s"),
            (ceiling(CeilingField::Floor), "2.784 µs"),
            (Directive::Gpu, "NVIDIA H200"),
        ];
        for (directive, want) in cases {
            assert_eq!(
                text_of(evaluate(&directive, &results)),
                want,
                "{directive:?}"
            );
        }
        let Value::Figure { title, .. } = evaluate(&ceiling(CeilingField::Floor), &results) else {
            panic!("not a figure")
        };
        assert_eq!(
            title,
            "launch floor measured alongside fast on NVIDIA H200, measured 2026-05-01"
        );
    }

    // Stale, unknown and unmeasured data show as not measured, with the reason.
    #[test]
    fn unmeasured_data_has_a_reason() {
        let book = Book::new();
        let results = book.results();
        let n = Size(1 << 28);
        let cases = [
            (measured("old", Field::Time, n), "earlier version"),
            (
                measured("nope", Field::Time, n),
                "no example with id `nope`",
            ),
            (
                measured("fast", Field::Time, Size(1 << 20)),
                "no timed result at N = 2^20",
            ),
            (
                measured("slow", Field::Hot, n),
                "`slow` has no hot figure at N = 2^28",
            ),
            (
                measured("slow", Field::PctCeiling, n),
                "`slow` has no % of the read ceiling at N = 2^28",
            ),
            (
                Directive::Ceiling {
                    id: "slow".into(),
                    field: CeilingField::Read,
                },
                "`slow` has no ceilings in its record",
            ),
            (
                Directive::Ceiling {
                    id: "old".into(),
                    field: CeilingField::Read,
                },
                "earlier version",
            ),
            (
                Directive::Peers {
                    problem: "sum_f32".into(),
                },
                "not measured: results/peers/sum_f32.json does not exist",
            ),
            (
                Directive::Repeatability,
                "not measured: results/repeatability.json does not exist",
            ),
        ];
        for (directive, want) in cases {
            let value = evaluate(&directive, &results);
            assert!(matches!(value, Value::Unmeasured(_)), "{value:?}");
            let reason = value.problem().unwrap_or_default();
            assert!(reason.contains(want), "{directive:?}: {reason}");
        }
        let gpu = Results::new(&book.catalog, &book.outcomes[2..], &book.stored).gpu_name();
        assert!(gpu.is_err());
    }

    // A comparison is current only while its kernel's key and record are.
    #[test]
    fn peers_staleness_follows_the_kernel() {
        let book = Book::new();
        let cases = [
            ("current", "fast", book.key_of("fast"), None),
            (
                "changed",
                "fast",
                "an-old-key".to_string(),
                Some("measured for an earlier version of fast"),
            ),
            (
                "record_stale",
                "old",
                book.key_of("old"),
                Some("measured for an earlier version of old"),
            ),
            (
                "gone",
                "gone",
                "k".to_string(),
                Some("gone is not an example of this book"),
            ),
        ];
        for (problem, ours, key, want) in cases {
            book.store_peers(problem, ours, &key);
            let value = evaluate(
                &Directive::Peers {
                    problem: problem.into(),
                },
                &book.results(),
            );
            let Value::Peers(peers) = &value else {
                panic!("{problem}: {value:?}")
            };
            assert_eq!(peers.stale.as_deref(), want, "{problem}");
            assert_eq!(peers.file, format!("results/peers/{problem}.json"));
            match want {
                None => assert_eq!(value.problem(), None),
                Some(w) => assert_eq!(
                    value.problem().unwrap(),
                    format!(
                        "results/peers/{problem}.json: {w}; run bench/gpu-session.sh on a GPU machine"
                    )
                ),
            }
        }
    }

    // The repeatability report has no key: present means current.
    #[test]
    fn repeatability_is_never_stale() {
        let book = Book::new();
        std::fs::create_dir_all(book.dir.path().join("results")).unwrap();
        std::fs::write(
            book.dir.path().join("results/repeatability.json"),
            r#"{"gpu": "NVIDIA H200", "measured_at": "2026-05-01T12:00:00Z", "rows": [],
                "max_abs_diff_pct_over_floor": 3.5, "goal_met": false}"#,
        )
        .unwrap();
        let value = evaluate(&Directive::Repeatability, &book.results());
        assert!(matches!(&value, Value::Repeatability(r) if !r.goal_met));
        assert_eq!(value.problem(), None);
    }

    // A ladder keeps the order written and marks rungs without data.
    #[test]
    fn ladder_rungs() {
        let book = Book::new();
        let value = evaluate(
            &Directive::Ladder {
                size: Size(1 << 28),
                ids: vec!["slow".into(), "old".into(), "fast".into()],
            },
            &book.results(),
        );
        let Value::Ladder(ladder) = &value else {
            panic!("{value:?}")
        };
        assert_eq!(ladder.gpu, Some(("NVIDIA H200".into(), 4800.0)));
        assert_eq!(ladder.rungs[0].figure.as_ref().unwrap().0, 4275.4 / 2.0);
        assert!(ladder.rungs[1].figure.is_err());
        assert!(value.problem().unwrap().contains("`old`"));
    }
}
