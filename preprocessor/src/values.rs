//! Evaluates directives against the book's settled outcomes and stored
//! reports: the figure a `{{#measured}}` or `{{#ceiling}}` shows, a ratio,
//! the rungs of a ladder, the GPU name, the peers comparison and the
//! repeatability report, or why the data is not there. Renderers turn
//! these values into HTML or markdown; a value that is not measured or not
//! current is a problem for strict builds.

use crate::artifacts::{allreduce, host, peers, profile, repeatability, sanitizer, sass};
pub use crate::artifacts::{peers::Peers, repeatability::Repeatability};
use crate::directives::{CeilingField, Directive, Field};
use crate::figures;
use crate::names::LookupError;
#[cfg(test)]
use crate::outcome::Outcome;
use crate::results::Results;
use crate::shown::Shown;
use cuda_measured_core::dims::Dims;
use cuda_measured_core::figures as core_figures;
use cuda_measured_core::record::{Record, SizeResult, Status};
#[cfg(test)]
use cuda_measured_core::size::Size;

mod render;
pub use render::render;

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
    Ladder(Box<Ladder>),
    /// The book's kernel against vendor libraries.
    Peers(Box<Peers>),
    /// Two measuring runs compared.
    Repeatability(Box<Repeatability>),
    /// Every example of the book and its state.
    Status(Box<crate::status_page::StatusPage>),
    /// What the compiler made of a kernel.
    Sass(Box<sass::SassView>),
    /// What compute-sanitizer found in a run.
    Sanitizer(Box<sanitizer::SanitizerView>),
    /// The host programs and what they printed.
    Host(Box<host::HostView>),
    /// An all-reduce report.
    Allreduce(Box<allreduce::AllreduceView>),
    /// Another's figure, with the URL it is quoted from.
    Quoted {
        /// The figure as its source gives it.
        text: String,
        /// Its source.
        source: String,
    },
    /// Data that is not (currently) measured.
    Unmeasured(String),
    /// A directive that names what the book does not have (a kernel, an
    /// anchor), with the fix: an error at the directive's line.
    Mistake(String),
}

impl From<Shown> for Value {
    fn from(shown: Shown) -> Value {
        match shown {
            Shown::Figure { text, title } => Value::Figure { text, title },
            Shown::Unmeasured(why) => Value::Unmeasured(why),
            Shown::Mistake(why) => Value::Mistake(why),
        }
    }
}

/// A `{{#ladder}}` chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Ladder {
    /// The size compared.
    pub size: Dims,
    /// GPU name and datasheet peak, from the first measured rung.
    pub gpu: Option<(String, f64)>,
    /// The figure charted: the primary figure of the first measured rung
    /// (`gbs`, `tflops`, `ns_per_access`).
    pub figure: String,
    /// One rung per example, in the order written.
    pub rungs: Vec<Rung>,
}

/// One bar of a ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    /// Example id.
    pub id: String,
    /// The figure, the bar's length in percent and the status, or why
    /// there are none. A bar is the percentage of the datasheet peak for
    /// `gbs` (as ladders always were), of the measured ceiling for a
    /// figure held to one (`tflops`), and of the longest rung otherwise.
    pub figure: Result<(f64, f64, Status), LookupError>,
}

impl Ladder {
    /// The chart's heading before ` at N = SIZE`: `GB/s`, `TFLOP/s`,
    /// `ns per access`.
    pub fn what(&self) -> &'static str {
        match self.figure.as_str() {
            "tflops" => "TFLOP/s",
            "ns_per_access" => "ns per access",
            _ => "GB/s",
        }
    }

    /// What the bars are a percentage of, after `bars in % of `.
    pub fn bars_of(&self) -> Option<String> {
        match self.figure.as_str() {
            "gbs" => self
                .gpu
                .as_ref()
                .map(|(_, peak)| format!("its {} peak", figures::gbs(*peak))),
            "tflops" => Some("the FP32 FMA ceiling measured with each".into()),
            _ => Some("the longest".into()),
        }
    }
}

/// An example of a ladder and its record's size there, or why it has none.
type Found<'a> = (String, Result<(&'a Record, &'a SizeResult), LookupError>);

/// The rungs of a ladder of `figure` from each example's size: the
/// figure and its bar (see [`Rung`]); an example whose primary figure is
/// another is not a rung of it.
fn rungs(figure: &str, found: Vec<Found<'_>>) -> Vec<Rung> {
    let bar_of = |s: &SizeResult| match figure {
        "gbs" => Some(s.pct_peak),
        "tflops" => s.pct_ceiling,
        _ => None,
    };
    let longest = found
        .iter()
        .filter_map(|(_, f)| f.as_ref().ok())
        .filter_map(|(_, s)| core_figures::value(s, figure))
        .fold(0.0, f64::max);
    found
        .into_iter()
        .map(|(id, f)| {
            let figure = f.and_then(|(r, s)| {
                if core_figures::primary(s) != figure {
                    return Err(LookupError::OtherFigure {
                        id: id.clone(),
                        reports: core_figures::primary(s).to_string(),
                        figure: figure.to_string(),
                    });
                }
                let v = core_figures::value(s, figure).ok_or_else(|| LookupError::NoFigure {
                    id: id.clone(),
                    figure: figure.to_string(),
                    n: s.n.to_string(),
                })?;
                let bar = bar_of(s).unwrap_or(if longest > 0.0 {
                    100.0 * v / longest
                } else {
                    0.0
                });
                Ok((v, bar, r.status))
            });
            Rung { id, figure }
        })
        .collect()
}

impl Value {
    /// Why this value makes a strict build fail, if it does.
    pub fn problem(&self) -> Option<String> {
        match self {
            // The status of every example is listed, never a problem itself.
            Value::Figure { .. } | Value::Quoted { .. } | Value::Status(_) => None,
            Value::Unmeasured(reason) | Value::Mistake(reason) => Some(reason.clone()),
            Value::Sass(view) => view.stale.clone(),
            Value::Sanitizer(view) => view.problem(),
            Value::Host(view) => view.problem(),
            Value::Allreduce(view) => view.problem(),
            Value::Peers(p) => p.problem(),
            Value::Repeatability(r) => r.problem(),
            Value::Ladder(ladder) => {
                let reasons: Vec<String> = ladder
                    .rungs
                    .iter()
                    .filter_map(|r| r.figure.as_ref().err().map(LookupError::to_string))
                    .collect();
                (!reasons.is_empty()).then(|| reasons.join("; "))
            }
        }
    }
}

/// Evaluates a parsed directive.
pub fn evaluate(directive: &Directive, results: &Results<'_>) -> Value {
    if let Some(mistake) = crate::directives::sweep_mistakes::mistakes(directive, results.catalog())
        .into_iter()
        .next()
    {
        return Value::Mistake(mistake);
    }
    match directive {
        Directive::Measured { id, field, size } => {
            if let Some(mistake) = figure_mistake(id, *field, results) {
                return Value::Mistake(mistake);
            }
            let size = match results.size_of(id, size) {
                Ok(size) => size,
                Err(mistake) => return Value::Mistake(mistake.to_string()),
            };
            let figure = results
                .at(id, size)
                .and_then(|(record, s)| Ok((measured_text(*field, s, id)?, record)));
            match figure {
                Ok((text, record)) => Value::Figure {
                    text: format!("{text}{}", quick_mark(&[record])),
                    title: source_title(id, size, record),
                },
                Err(reason) => Value::Unmeasured(reason.to_string()),
            }
        }
        Directive::Ratio { a, b, size } => match (
            results.at_written(a, size),
            results.at_written(b, size),
        ) {
            (Ok((ra, sa)), Ok((rb, sb))) => Value::Figure {
                text: format!(
                    "{}{}",
                    figures::ratio(sa.median_us / sb.median_us),
                    quick_mark(&[ra, rb])
                ),
                title: format!(
                    "time of {a} over time of {b}: {} / {}, {}",
                    figures::time_us(sa.median_us),
                    figures::time_us(sb.median_us),
                    source_title("both", sa.size(), ra)
                ),
            },
            (Err(reason), _) | (_, Err(reason)) => Value::Unmeasured(reason.to_string()),
        },
        Directive::Ladder { size, ids } => {
            let shown = match results.size_of(&ids[0], size) {
                Ok(size) => size,
                Err(mistake) => return Value::Mistake(mistake.to_string()),
            };
            // A swept example without a value is a bar per value.
            let found: Vec<Found<'_>> = crate::example_ref::ladder_bars(ids, results.catalog())
                .into_iter()
                .map(|id| {
                    let at = results.at_written(&id, size);
                    (id, at)
                })
                .collect();
            let figure = found
                .iter()
                .find_map(|(_, f)| f.as_ref().ok())
                .map_or("gbs", |(_, s)| core_figures::primary(s))
                .to_string();
            let gpu = found
                .iter()
                .filter_map(|(_, f)| f.as_ref().ok())
                .find_map(|(r, _)| r.gpu.as_ref())
                .map(|g| (g.name.clone(), g.peak_gbs));
            Value::Ladder(Box::new(Ladder {
                size: shown,
                gpu,
                rungs: rungs(&figure, found),
                figure,
            }))
        }
        Directive::Ceiling { id, field } => ceiling(id, *field, results),
        Directive::Quote { source, text } => Value::Quoted {
            text: text.clone(),
            source: source.clone(),
        },
        Directive::Gpu => match results.gpu_name() {
            Ok(name) => Value::Figure {
                title: "the GPU this book's results were measured on".into(),
                text: name,
            },
            Err(reason) => Value::Unmeasured(reason.to_string()),
        },
        Directive::Peers { problem } => peers::evaluate(problem, results)
            .map_or_else(Value::from, |view| Value::Peers(Box::new(view))),
        Directive::Profile { id, metric, size } => match results.size_of(id, size) {
            Ok(size) => profile::figure(id, metric, size, results).into(),
            Err(mistake) => Value::Mistake(mistake.to_string()),
        },
        Directive::Repeatability => repeatability::evaluate(results)
            .map_or_else(Value::from, |view| Value::Repeatability(Box::new(view))),
        Directive::Status => Value::Status(Box::new(crate::status_page::StatusPage::new(
            results.catalog(),
            results.outcomes(),
        ))),
        Directive::Sass(target) => sass::evaluate(target, results)
            .map_or_else(Value::from, |view| Value::Sass(Box::new(view))),
        Directive::SassCount { target, what } => sass::count(target, *what, results).into(),
        Directive::Sanitizer { id, check, size } => match results.size_of(id, size) {
            Ok(size) => sanitizer::evaluate(id, check, size, results)
                .map_or_else(Value::from, |view| Value::Sanitizer(Box::new(view))),
            Err(mistake) => Value::Mistake(mistake.to_string()),
        },
        Directive::Host { id, size } => match results.size_of(id, size) {
            Ok(size) => host::evaluate(id, size, results)
                .map_or_else(Value::from, |view| Value::Host(Box::new(view))),
            Err(mistake) => Value::Mistake(mistake.to_string()),
        },
        Directive::Allreduce { gpus } => {
            Value::Allreduce(Box::new(allreduce::evaluate(*gpus, results)))
        }
        Directive::AllreduceFigure {
            gpus,
            implementation,
            field,
            bytes,
        } => allreduce::figure(*gpus, implementation, *field, *bytes, results).into(),
        // A whole stage, laid out by crate::exercise_page where it stands.
        Directive::Exercise { .. } => Value::Unmeasured(
            "an exercise stage is a block of its own, not a figure: write it alone on its line, outside another stage's text".into(),
        ),
    }
}

/// Why `{{#measured ID FIELD ...}}` can never have its figure: the
/// example's problem does not report FIELD (a `tflops` of a sum), named
/// with the figure meant among those it reports. `None` when it does, or
/// when the book has no such example (said where the record is looked up).
fn figure_mistake(id: &str, field: Field, results: &Results<'_>) -> Option<String> {
    // Every problem's launches may use clusters; whether they do is known
    // only from the compiled kernel, so the record says (it lacks the
    // figure otherwise).
    if field == Field::Clusters {
        return None;
    }
    // Every record's sizes have the SM clock its samples ran at.
    if field == Field::SmClock {
        return None;
    }
    let (example, _) = results.example(id)?;
    let problem = example.declaration.resolve_problem()?;
    let names = core_figures::names_of_problem(&*problem);
    let name = field.name();
    if names.iter().any(|n| n == name) {
        return None;
    }
    Some(cuda_measured_core::suggest::message(
        &format!("`{id}` ({}) has no figure `{name}`", problem.name()),
        name,
        names.iter().map(String::as_str),
        &format!("its figures are {}", names.join(", ")),
    ))
}

/// The text of one `{{#measured}}` figure, or why the record lacks it.
fn measured_text(field: Field, s: &SizeResult, id: &str) -> Result<String, LookupError> {
    let lacks = |what: &str| LookupError::Lacks {
        id: id.to_string(),
        what: what.to_string(),
        size: s.size().words(),
    };
    Ok(match field {
        Field::Named(name) => figures::named(
            name,
            core_figures::value(s, name).ok_or_else(|| LookupError::LacksNamed {
                id: id.to_string(),
                name: name.to_string(),
                size: s.size().words(),
                has: core_figures::names_of(s).join(", "),
            })?,
        ),
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
        Field::SmClock => {
            if s.sm_clock_mhz.is_nan() || s.sm_clock_mhz <= 0.0 {
                return Err(lacks("SM clock (NVML could not read it)"));
            }
            format!("{:.0} MHz", s.sm_clock_mhz)
        }
        Field::Error => figures::error(s.error),
        Field::Clusters => {
            let fit = s
                .clusters
                .ok_or_else(|| lacks("count of resident clusters (recorded for a launch of clusters by runs since the runner counts them: measure it again)"))?;
            format!(
                "at most {} clusters of {} blocks resident at once",
                fit.max_active, fit.blocks
            )
        }
    })
}

/// A `{{#ceiling}}` figure from the current record of `id`.
fn ceiling(id: &str, field: CeilingField, results: &Results<'_>) -> Value {
    let record = match results.record(id) {
        Ok(record) => record,
        Err(reason) => return Value::Unmeasured(reason.to_string()),
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
        CeilingField::Device(word) => match device_fact(word, record) {
            Some(fact) => fact,
            None => {
                return Value::Unmeasured(format!(
                    "`{id}`'s record names no GPU: measure it again"
                ));
            }
        },
        CeilingField::Named(word) => {
            let (name, peak) = match word.strip_suffix("_peak") {
                Some(name) => (name, true),
                None => (word, false),
            };
            let Some(m) = c.named(name) else {
                return Value::Unmeasured(format!(
                    "`{id}`'s record has no {name} ceiling: it is measured only for an example whose problem is held to it"
                ));
            };
            let value = if peak {
                match m.peak {
                    Some(p) => p,
                    None => {
                        return Value::Unmeasured(format!(
                            "`{id}`'s {name} ceiling has no datasheet figure beside it"
                        ));
                    }
                }
            } else {
                m.value
            };
            let text = match m.unit.as_str() {
                "TFLOP/s" => figures::tflops(value),
                _ => figures::gbs(value),
            };
            let what = match (name, peak) {
                ("fp32_fma", false) => "FP32 FMA ceiling",
                ("fp32_fma", true) => {
                    "FP32 FMA datasheet figure (default SM clock x SMs x 128 lanes x 2 FLOP)"
                }
                ("h2d_pinned", _) => "pinned host-to-device ceiling",
                _ => "pinned device-to-host ceiling",
            };
            (what, text)
        }
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

/// A device fact of `record`'s GPU as `{{#ceiling ID sms|l2|memory}}`
/// shows it (`132`, `60 MiB`, `139.8 GiB`), with what it is; `None` when
/// the record names no GPU.
fn device_fact(
    word: &str,
    record: &cuda_measured_core::record::Record,
) -> Option<(&'static str, String)> {
    let gpu = record.gpu.as_ref()?;
    const MIB: f64 = (1u64 << 20) as f64;
    const GIB: f64 = (1u64 << 30) as f64;
    Some(match word {
        "sms" => ("multiprocessor count", gpu.sm_count.to_string()),
        "l2" => (
            "L2 cache size",
            format!("{} MiB", trim(gpu.l2_bytes as f64 / MIB)),
        ),
        _ => (
            "device memory",
            format!("{} GiB", trim(gpu.memory_bytes as f64 / GIB)),
        ),
    })
}

/// A size in MiB or GiB with one decimal, or none when it is whole.
fn trim(value: f64) -> String {
    if (value - value.round()).abs() < 0.05 {
        format!("{:.0}", value.round())
    } else {
        format!("{value:.1}")
    }
}

/// Whether a stored report (`{{#peers}}`, `{{#repeatability}}`) is stale
/// only because examples it covers changed and now wait to be measured:
/// the author's pre-GPU build accepts that. A method change, an example
/// gone or broken, or a report that does not exist does not wait for a GPU
/// alone, and fails as before.
pub fn report_awaits_measuring(directive: &Directive, results: &Results<'_>) -> bool {
    match directive {
        Directive::Peers { problem } => peers::awaits(problem, results),
        // A profile not collected yet, collected for earlier code, or
        // without the stall reasons asked for, waits for the GPU
        // machine's profiling run.
        Directive::Profile { id, metric, size } => results
            .size_of(id, size)
            .is_ok_and(|size| profile::awaits(id, metric, size, results)),
        Directive::Repeatability => repeatability::awaits(results),
        // A record made before the runner counted resident clusters waits
        // for the example to be measured again.
        Directive::Measured {
            id,
            field: Field::Clusters,
            size,
        } => results
            .at_written(id, size)
            .is_ok_and(|(_, s)| s.clusters.is_none()),
        _ => false,
    }
}

fn source_title(id: &str, size: Dims, record: &Record) -> String {
    let gpu = record.gpu.as_ref().map_or("no GPU", |g| g.name.as_str());
    format!(
        "{id} at {} on {gpu}, measured {}{}",
        size.words(),
        figures::date(&record.measured_at),
        if record.quick {
            " in quick mode (one process, the preview's; not in results/)"
        } else {
            ""
        }
    )
}

/// ` (quick)` after a figure that rests on a quick record, so the preview
/// never passes one off as fully measured.
fn quick_mark(records: &[&Record]) -> &'static str {
    if records.iter().any(|r| r.quick) {
        " (quick)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stored::StoredReports;
    use crate::test_support::{Book, KERNEL, catalog_of, record, settings_in};
    use cuda_measured_core::declaration::Expectation;
    use cuda_measured_core::dims::Written;

    // Any figure a record has is addressed by name with its unit (a rate
    // of `metrics`, TFLOP/s, ns and cycles per access); one the example's
    // problem does not report is a mistake in every build, naming the
    // figure meant among the problem's, and one its record lacks says
    // which it has.
    #[test]
    fn figures_beyond_bandwidth_by_name() {
        let mut book = Book::new();
        if let Outcome::Fresh(r) = &mut book.outcomes[0] {
            r.sizes[0].metrics.insert("elements_per_s".into(), 1.07e12);
        }
        let results = book.results();
        let n = Size(1 << 28);
        assert_eq!(
            text_of(evaluate(
                &measured("fast", Field::Named("elements_per_s"), n),
                &results
            )),
            "1.07 T elements/s"
        );
        let Value::Mistake(m) = evaluate(&measured("fast", Field::Named("tflops"), n), &results)
        else {
            panic!("a sum has no tflops")
        };
        assert!(m.contains("`fast` (sum_f32) has no figure `tflops`"), "{m}");
        assert!(
            m.contains("pct_ceiling") && m.contains("elements_per_s"),
            "{m}"
        );
        let Value::Unmeasured(m) = evaluate(
            &measured("slow", Field::Named("elements_per_s"), n),
            &results,
        ) else {
            panic!("a record without the rate")
        };
        assert!(
            m.contains("has no figure `elements_per_s`") && m.contains("it has time, gbs"),
            "{m}"
        );

        let mut s = SizeResult {
            median_us: 4000.0,
            sm_clock_mhz: 1980.0,
            ..SizeResult::default()
        };
        s.metrics.insert("flop_per_s".into(), 34.36e12);
        s.metrics.insert("accesses_per_s".into(), 1.6384e9);
        assert_eq!(
            measured_text(Field::Named("tflops"), &s, "mm").unwrap(),
            "34.36 TFLOP/s"
        );
        assert_eq!(
            measured_text(Field::Named("ns_per_access"), &s, "pc").unwrap(),
            "0.610 ns"
        );
        assert_eq!(
            measured_text(Field::Named("cycles_per_access"), &s, "pc").unwrap(),
            "1.208 cycles"
        );
        // The SM clock the samples ran at, and none where NVML read none.
        assert_eq!(measured_text(Field::SmClock, &s, "mm").unwrap(), "1980 MHz");
        s.sm_clock_mhz = 0.0;
        assert!(measured_text(Field::SmClock, &s, "mm").is_err());
    }

    // A word no record has is refused where the directive is read, with
    // the one meant.
    #[test]
    fn unknown_figures_name_the_one_meant() {
        let err = crate::directives::parse("measured", &["a", "tflop", "2^20"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean `tflops`"), "{err}");
        let err = crate::directives::parse("measured", &["a", "ns_per_acess", "2^20"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean `ns_per_access`"), "{err}");
        assert!(crate::directives::parse("ceiling", &["a", "fp32_fma"]).is_ok());
        let err = crate::directives::parse("ceiling", &["a", "fp32_fmaa"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean `fp32_fma`"), "{err}");
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
            size: size.into(),
        }
    }

    // `{{#measured ID clusters SIZE}}` gives the count of resident
    // clusters a record holds; a current record without it (made before
    // the runner counted them, or of an example without clusters) says so
    // and waits, in an author's build, for the example to be measured
    // again; the strict build fails on it.
    #[test]
    fn resident_clusters_come_from_the_record() {
        let mut book = Book::new();
        let n = Size(1 << 28);
        let clusters = measured("fast", Field::Clusters, n);
        match evaluate(&clusters, &book.results()) {
            Value::Unmeasured(why) => assert!(why.contains("count of resident clusters"), "{why}"),
            other => panic!("not unmeasured: {other:?}"),
        }
        assert!(report_awaits_measuring(&clusters, &book.results()));
        let Outcome::Fresh(fast) = &mut book.outcomes[0] else {
            panic!("fast is fresh")
        };
        fast.sizes[0].clusters = Some(cuda_measured_core::record::ClusterFit {
            blocks: 8,
            max_active: 16,
        });
        assert_eq!(
            text_of(evaluate(&clusters, &book.results())),
            "at most 16 clusters of 8 blocks resident at once"
        );
        assert!(!report_awaits_measuring(&clusters, &book.results()));
        assert_eq!(
            crate::directives::parse("measured", &["fast", "clusters", "2^28"]).ok(),
            Some(clusters)
        );
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
                    size: n.into(),
                },
                "2.00×",
            ),
            (ceiling(CeilingField::Read), "4328 GB/s"),
            (ceiling(CeilingField::Copy), "3936 GB/s"),
            (ceiling(CeilingField::Floor), "2.784 µs"),
            (ceiling(CeilingField::Device("sms")), "132"),
            (ceiling(CeilingField::Device("l2")), "60 MiB"),
            (ceiling(CeilingField::Device("memory")), "141 GiB"),
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
                "`fast` does not declare N = 2^20: its declared sizes are 2^28",
            ),
            (
                measured("fsat", Field::Time, n),
                "no example with id `fsat` in this book; did you mean `fast`?",
            ),
            (
                measured("r/slow", Field::Time, n),
                "no example with id `r/slow` in this book; did you mean `slow`?",
            ),
            (
                Directive::Ratio {
                    a: "fast".into(),
                    b: "slow".into(),
                    size: Size(1000).into(),
                },
                "`fast` does not declare N = 1000: its declared sizes are 2^28",
            ),
            (
                Directive::Ceiling {
                    id: "slwo".into(),
                    field: CeilingField::Read,
                },
                "no example with id `slwo` in this book; did you mean `slow`?",
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

    // An id near none of the book's gets no suggestion; the id of a block
    // that cannot be resolved is named as broken, not as a typo, with the
    // error of its block (the line of its header's mistake).
    #[test]
    fn unknown_and_broken_ids() {
        let (_dir, settings) = settings_in(&[]);
        let text = format!(
            "```cuda run id=fast\n{KERNEL}```\n\n```cuda run id=bad\nno header\n```\n\n```cuda run file=r/gone.cu\n```\n"
        );
        let catalog = catalog_of(&settings, &text);
        let outcomes = vec![
            Outcome::Missing,
            Outcome::Broken("no header".into()),
            Outcome::Broken("no file".into()),
        ];
        let stored = StoredReports::new(&settings.results, "results");
        let results = Results::new(&catalog, &outcomes, &stored);
        assert_eq!(
            results.record("nope").unwrap_err().to_string(),
            "no example with id `nope` in this book"
        );
        assert_eq!(
            results.record("bad").unwrap_err().to_string(),
            "`bad` is broken: src/ch.md:17: no example header: start the kernel with a `/*+++ ... +++*/` comment holding problem, sizes and [[launch]] (see AUTHORING.md)"
        );
        let gone = results.record("r/gone").unwrap_err().to_string();
        assert!(
            gone.starts_with("`r/gone` is broken: src/ch.md:20: kernels/r/gone.cu:1: cannot read"),
            "{gone}"
        );
        assert_eq!(
            results.record("r/gnoe").unwrap_err().to_string(),
            "no example with id `r/gnoe` in this book; did you mean `r/gone`?"
        );
        assert_eq!(
            results.record("bda").unwrap_err().to_string(),
            "no example with id `bda` in this book; did you mean `bad`?"
        );
    }

    /// A book with one example `s` that sweeps STRIDE over 4, 1, 2 (in
    /// that declared order) at 2^28, its fresh record a row per value
    /// with the time 100 µs times the value.
    fn swept_book() -> (
        tempfile::TempDir,
        crate::catalog::Catalog,
        Vec<Outcome>,
        StoredReports,
    ) {
        const SWEPT: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^28\"]\n[sweep]\nSTRIDE = [4, 1, 2]\n[[launch]]\nkernel = \"tree\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\", \"STRIDE\"]\n+++*/\nextern \"C\" __global__ void tree(const float* x, float* out, unsigned n, unsigned s) {}\n";
        let (dir, settings) = settings_in(&[]);
        let catalog = catalog_of(&settings, &format!("```cuda run id=s\n{SWEPT}```\n"));
        let mut r = record(Status::Pass, Expectation::Pass);
        let one = r.sizes[0].clone();
        r.sizes = [4u64, 1, 2]
            .iter()
            .map(|&v| {
                let mut s = one.clone();
                s.median_us = 100.0 * v as f64;
                s.gbs = 1000.0 / v as f64;
                s.pct_peak = 20.0 / v as f64;
                s.sweep = Some(cuda_measured_core::sweep::SweepValue {
                    name: "STRIDE".into(),
                    value: v,
                });
                s
            })
            .collect();
        let stored = StoredReports::new(&settings.results, "results");
        (dir, catalog, vec![Outcome::Fresh(r)], stored)
    }

    // `ID@NAME=VALUE` finds that value's figures only; a swept example
    // without a value is a mistake at the directive; a ladder of it has a
    // bar per value in declared order, each with its own figure.
    #[test]
    fn swept_examples_have_a_figure_per_value() {
        let (_dir, catalog, outcomes, stored) = swept_book();
        let results = Results::new(&catalog, &outcomes, &stored);
        let time = |id: &str| {
            evaluate(
                &Directive::Measured {
                    id: id.into(),
                    field: Field::Time,
                    size: Size(1 << 28).into(),
                },
                &results,
            )
        };
        let Value::Figure { text, .. } = time("s@STRIDE=2") else {
            panic!("{:?}", time("s@STRIDE=2"))
        };
        assert_eq!(text, figures::time_us(200.0));
        let Value::Mistake(why) = time("s") else {
            panic!("{:?}", time("s"))
        };
        assert!(why.contains("name one value, e.g. `s@STRIDE=4`"), "{why}");
        let Value::Mistake(why) = time("s@STRIDE=8") else {
            panic!("{:?}", time("s@STRIDE=8"))
        };
        assert!(why.contains("its values are 4, 1, 2"), "{why}");
        let ladder = evaluate(
            &Directive::Ladder {
                size: Size(1 << 28).into(),
                ids: vec!["s".into()],
            },
            &results,
        );
        let Value::Ladder(ladder) = &ladder else {
            panic!("{ladder:?}")
        };
        let bars: Vec<(&str, f64)> = ladder
            .rungs
            .iter()
            .map(|r| (r.id.as_str(), r.figure.as_ref().unwrap().0))
            .collect();
        assert_eq!(
            bars,
            [
                ("s@STRIDE=4", 250.0),
                ("s@STRIDE=1", 1000.0),
                ("s@STRIDE=2", 500.0)
            ]
        );
        let ratio = evaluate(
            &Directive::Ratio {
                a: "s@STRIDE=4".into(),
                b: "s@STRIDE=1".into(),
                size: Size(1 << 28).into(),
            },
            &results,
        );
        let Value::Figure { text, .. } = ratio else {
            panic!("{ratio:?}")
        };
        assert_eq!(text, figures::ratio(4.0));
    }

    // The panel of a swept example has a row per (value, size), labelled
    // with the value, in the record's order (values as declared).
    #[test]
    fn a_swept_panel_has_a_row_per_value() {
        let (_dir, _catalog, outcomes, _stored) = swept_book();
        let panel = crate::render::Panel {
            id: "s",
            anchor: None,
            outcome: &outcomes[0],
            raw: "",
        };
        for text in [
            crate::render::markdown::panel(&panel),
            crate::render::html::panel(&panel),
        ] {
            let rows: Vec<usize> = [
                "STRIDE = 4 · 2^28",
                "STRIDE = 1 · 2^28",
                "STRIDE = 2 · 2^28",
            ]
            .iter()
            .map(|row| text.find(row).unwrap_or_else(|| panic!("{row} in {text}")))
            .collect();
            assert!(rows.windows(2).all(|w| w[0] < w[1]), "{text}");
            assert!(text.contains("STRIDE · N"), "{text}");
        }
    }

    // A ladder keeps the order written and marks rungs without data.
    #[test]
    fn ladder_rungs() {
        let book = Book::new();
        let value = evaluate(
            &Directive::Ladder {
                size: Size(1 << 28).into(),
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

    // A directive's size of a problem of several dimensions reads in any
    // written form of a declared size and finds its figures; one it does
    // not declare lists the declared sizes in their canonical text, and a
    // size of the wrong shape is the author's mistake, with how to write one.
    #[test]
    fn sizes_of_several_dimensions_read_in_any_form() {
        const TRANSPOSE: &str = "/*+++\nproblem = \"transpose\"\nsizes = [\"4096x4096\", \"rows = 2048, cols = 16384\"]\n[[launch]]\nkernel = \"t\"\ngrid = \"ceil_div(rows * cols, 256)\"\nblock = 256\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\n+++*/\nextern \"C\" __global__ void t(const float* x, float* y, unsigned rows, unsigned cols) {}\n";
        let (_dir, settings) = settings_in(&[]);
        let catalog = catalog_of(&settings, &format!("```cuda run id=tp\n{TRANSPOSE}```\n"));
        let mut r = record(Status::Pass, Expectation::Pass);
        let dims = catalog.entries[0].example().unwrap().declaration.sizes[1];
        r.sizes[0].n = Size(dims.n_value());
        r.sizes[0].dims = Some(dims);
        let outcomes = vec![Outcome::Fresh(r)];
        let stored = StoredReports::new(&settings.results, "results");
        let results = Results::new(&catalog, &outcomes, &stored);
        let time = |size: &str| {
            evaluate(
                &Directive::Measured {
                    id: "tp".into(),
                    field: Field::Time,
                    size: Written::parse(size).unwrap(),
                },
                &results,
            )
        };
        for form in ["2048x16384", "rows=2048,cols=16384", "cols=2^14,rows=2^11"] {
            match time(form) {
                Value::Figure { title, .. } => {
                    assert!(
                        title.starts_with("tp at rows x cols 2048x16384 on"),
                        "{title}"
                    )
                }
                other => panic!("{form}: {other:?}"),
            }
        }
        assert_eq!(
            time("1024x1024"),
            Value::Unmeasured(
                "`tp` does not declare rows x cols 1024x1024: its declared sizes are 4096x4096; 2048x16384".into()
            )
        );
        assert_eq!(
            time("4096x4096"),
            Value::Unmeasured("`tp` has no timed result at rows x cols 4096x4096".into())
        );
        match time("4096") {
            Value::Mistake(m) => assert!(
                m.starts_with("`tp`: `4096` is not a size of rows x cols: it has 1 value")
                    && m.contains("\"4096x4096\""),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
    }

    // A problem of one dimension other than `n` (a transfer's `bytes`)
    // finds its figures: its records keep the size as a number, as every
    // one-dimensional record does, and the directive's size is read
    // against the example's own dimension.
    #[test]
    fn a_size_of_one_named_dimension_finds_its_record() {
        const TRANSFER: &str = "/*+++\nproblem = \"transfer\"\nsizes = [\"64KiB\", \"256MiB\"]\n[transfer]\ndirection = \"h2d\"\nhost = \"pinned\"\n+++*/\n";
        let (_dir, settings) = settings_in(&[]);
        let catalog = catalog_of(&settings, &format!("```cuda run id=tr\n{TRANSFER}```\n"));
        let mut r = record(Status::Pass, Expectation::Pass);
        r.sizes[0].n = Size(256 << 20);
        r.sizes[0].dims = None;
        let outcomes = vec![Outcome::Fresh(r)];
        let stored = StoredReports::new(&settings.results, "results");
        let results = Results::new(&catalog, &outcomes, &stored);
        let value = evaluate(
            &Directive::Measured {
                id: "tr".into(),
                field: Field::Time,
                size: Written::parse("256MiB").unwrap(),
            },
            &results,
        );
        assert!(matches!(value, Value::Figure { .. }), "{value:?}");
    }
}
