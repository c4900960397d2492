//! Evaluates directives against the book's settled outcomes: the figure a
//! `{{#measured}}` shows, a ratio, the rungs of a ladder, the GPU name, or
//! why the data is not there. Renderers turn these values into HTML or
//! markdown; a value that is not measured is a problem for strict builds.

use crate::catalog::Catalog;
use crate::directives::{Directive, Field};
use crate::figures;
use crate::outcome::Outcome;
use cuda_runner::record::{Record, SizeResult, Status};
use cuda_runner::size::Size;
use std::collections::BTreeMap;

/// The book's results, by example id.
#[derive(Debug, Clone, Copy)]
pub struct Results<'a> {
    catalog: &'a Catalog,
    outcomes: &'a [Outcome],
}

impl<'a> Results<'a> {
    /// Results of `catalog`'s entries (`outcomes` in the same order).
    pub fn new(catalog: &'a Catalog, outcomes: &'a [Outcome]) -> Self {
        Results { catalog, outcomes }
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
    /// Data that is not (currently) measured.
    Unmeasured(String),
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
            Value::Figure { .. } => None,
            Value::Unmeasured(reason) => Some(reason.clone()),
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
        Directive::Measured { id, field, size } => match results.at(id, *size) {
            Ok((record, s)) => Value::Figure {
                text: match field {
                    Field::Time => figures::time_us(s.median_us),
                    Field::Gbs => figures::gbs(s.gbs),
                    Field::PctPeak => figures::percent(s.pct_peak),
                    Field::Error => figures::error(s.error),
                },
                title: source_title(id, *size, record),
            },
            Err(reason) => Value::Unmeasured(reason),
        },
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
        Directive::Gpu => match results.gpu_name() {
            Ok(name) => Value::Figure {
                title: "the GPU this book's results were measured on".into(),
                text: name,
            },
            Err(reason) => Value::Unmeasured(reason),
        },
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

    /// A book with examples `fast` (fresh), `slow` (fresh, twice the time) and `old` (stale).
    fn results_fixture() -> (Catalog, Vec<Outcome>) {
        let (_dir, settings) = settings_in(&[]);
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
        let fast = record(Status::Pass, Expectation::Pass);
        let mut slow = fast.clone();
        slow.sizes[0].median_us *= 2.0;
        slow.sizes[0].gbs /= 2.0;
        slow.sizes[0].pct_peak /= 2.0;
        let outcomes = vec![
            Outcome::Fresh(fast.clone()),
            Outcome::Fresh(slow),
            Outcome::Stale(fast),
        ];
        (catalog, outcomes)
    }

    fn text_of(value: Value) -> String {
        match value {
            Value::Figure { text, .. } => text,
            other => panic!("not a figure: {other:?}"),
        }
    }

    // Each directive reads the current records and formats like the panels.
    #[test]
    fn figures_from_current_records() {
        let (catalog, outcomes) = results_fixture();
        let results = Results::new(&catalog, &outcomes);
        let n = Size(1 << 28);
        let measured = |id: &str, field| {
            evaluate(
                &Directive::Measured {
                    id: id.into(),
                    field,
                    size: n,
                },
                &results,
            )
        };
        assert_eq!(text_of(measured("fast", Field::Time)), "251.2 µs");
        assert_eq!(text_of(measured("fast", Field::Gbs)), "4275 GB/s");
        assert_eq!(text_of(measured("fast", Field::PctPeak)), "89.1%");
        assert_eq!(text_of(measured("fast", Field::Error)), "3.1e-08");
        let ratio = evaluate(
            &Directive::Ratio {
                a: "slow".into(),
                b: "fast".into(),
                size: n,
            },
            &results,
        );
        assert_eq!(text_of(ratio), "2.00×");
        assert_eq!(text_of(evaluate(&Directive::Gpu, &results)), "NVIDIA H200");
    }

    // Stale, unknown and unmeasured data show as not measured, with the reason.
    #[test]
    fn unmeasured_data_has_a_reason() {
        let (catalog, outcomes) = results_fixture();
        let results = Results::new(&catalog, &outcomes);
        let cases = [
            ("old", Size(1 << 28), "earlier version"),
            ("nope", Size(1 << 28), "no example with id `nope`"),
            ("fast", Size(1 << 20), "no timed result at N = 2^20"),
        ];
        for (id, size, want) in cases {
            let value = evaluate(
                &Directive::Measured {
                    id: id.into(),
                    field: Field::Time,
                    size,
                },
                &results,
            );
            let reason = value.problem().unwrap_or_default();
            assert!(reason.contains(want), "{id}: {reason}");
        }
        let gpu = Results::new(&catalog, &outcomes[2..]).gpu_name();
        assert!(gpu.is_err());
    }

    // A ladder keeps the order written and marks rungs without data.
    #[test]
    fn ladder_rungs() {
        let (catalog, outcomes) = results_fixture();
        let results = Results::new(&catalog, &outcomes);
        let value = evaluate(
            &Directive::Ladder {
                size: Size(1 << 28),
                ids: vec!["slow".into(), "old".into(), "fast".into()],
            },
            &results,
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
