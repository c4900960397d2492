//! Evaluates directives against the book's settled outcomes and stored
//! reports: the figure a `{{#measured}}` or `{{#ceiling}}` shows, a ratio,
//! the rungs of a ladder, the GPU name, the peers comparison and the
//! repeatability report, or why the data is not there. Renderers turn
//! these values into HTML or markdown; a value that is not measured or not
//! current is a problem for strict builds.

use crate::directives::{CeilingField, Directive, Field};
use crate::figures;
use crate::outcome::Outcome;
use crate::results::Results;
use crate::shown::Shown;
use cuda_measured_core::dims::Dims;
use cuda_measured_core::figures as core_figures;
use cuda_measured_core::profile::Metric;
use cuda_measured_core::record::{Record, SizeResult, Status};
#[cfg(test)]
use cuda_measured_core::size::Size;
use cuda_measured_core::{peers, repeatability};

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
    Sass(Box<crate::sass_view::SassView>),
    /// What compute-sanitizer found in a run.
    Sanitizer(Box<crate::sanitizer_view::SanitizerView>),
    /// The host programs and what they printed.
    Host(Box<crate::host_view::HostView>),
    /// An all-reduce report.
    Allreduce(Box<crate::allreduce_view::AllreduceView>),
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

/// A `{{#repeatability}}` report.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeatability {
    /// The stored report.
    pub report: repeatability::Report,
    /// Its file as shown in messages (`results/repeatability.json`).
    pub file: String,
    /// Why it no longer describes the book (`the measuring method changed
    /// from v4 to v5 since it was measured`), or `None` when current.
    pub stale: Option<String>,
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
    pub figure: Result<(f64, f64, Status), String>,
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
type Found<'a> = (String, Result<(&'a Record, &'a SizeResult), String>);

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
                    return Err(format!(
                        "`{id}` reports {}, not {figure} as the ladder's first example does",
                        core_figures::primary(s)
                    ));
                }
                let v = core_figures::value(s, figure)
                    .ok_or_else(|| format!("`{id}` has no {figure} at N = {}", s.n))?;
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
            Value::Figure { .. } | Value::Status(_) => None,
            Value::Unmeasured(reason) | Value::Mistake(reason) => Some(reason.clone()),
            Value::Sass(view) => view.stale.clone(),
            Value::Sanitizer(view) => view.problem(),
            Value::Host(view) => view.problem(),
            Value::Allreduce(view) => view.problem(),
            Value::Peers(p) => stale_problem(&p.file, p.stale.as_deref()),
            Value::Repeatability(r) => stale_problem(&r.file, r.stale.as_deref()),
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

/// Why a stored report that is not current fails a strict build.
fn stale_problem(file: &str, stale: Option<&str>) -> Option<String> {
    stale.map(|reason| format!("{file}: {reason}; run bench/gpu-session.sh on a GPU machine"))
}

/// Evaluates a parsed directive.
pub fn evaluate(directive: &Directive, results: &Results<'_>) -> Value {
    if let Some(mistake) = crate::example_ref::mistakes(directive, results.catalog())
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
                Err(mistake) => return Value::Mistake(mistake),
            };
            let figure = results
                .at(id, size)
                .and_then(|(record, s)| Ok((measured_text(*field, s, id)?, record)));
            match figure {
                Ok((text, record)) => Value::Figure {
                    text: format!("{text}{}", quick_mark(&[record])),
                    title: source_title(id, size, record),
                },
                Err(reason) => Value::Unmeasured(reason),
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
            (Err(reason), _) | (_, Err(reason)) => Value::Unmeasured(reason),
        },
        Directive::Ladder { size, ids } => {
            let shown = match results.size_of(&ids[0], size) {
                Ok(size) => size,
                Err(mistake) => return Value::Mistake(mistake),
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
        Directive::Gpu => match results.gpu_name() {
            Ok(name) => Value::Figure {
                title: "the GPU this book's results were measured on".into(),
                text: name,
            },
            Err(reason) => Value::Unmeasured(reason),
        },
        Directive::Peers { problem } => match results.stored().peers(problem) {
            Ok(report) => {
                let stale = peers_staleness(&report, results);
                Value::Peers(Box::new(Peers {
                    report,
                    file: results.stored().shown(&format!("peers/{problem}.json")),
                    stale,
                }))
            }
            Err(reason) => Value::Unmeasured(reason),
        },
        Directive::Profile { id, metric, size } => match results.size_of(id, size) {
            Ok(size) => profile_figure(id, metric, size, results),
            Err(mistake) => Value::Mistake(mistake),
        },
        Directive::Repeatability => match results.stored().repeatability() {
            Ok(report) => {
                let stale = repeatability_staleness(&report, results);
                Value::Repeatability(Box::new(Repeatability {
                    report,
                    file: results.stored().shown("repeatability.json"),
                    stale,
                }))
            }
            Err(reason) => Value::Unmeasured(reason),
        },
        Directive::Status => Value::Status(Box::new(crate::status_page::StatusPage::new(
            results.catalog(),
            results.outcomes(),
        ))),
        Directive::Sass(target) => crate::sass_view::evaluate(target, results)
            .map_or_else(Value::from, |view| Value::Sass(Box::new(view))),
        Directive::SassCount { target, what } => {
            crate::sass_view::count(target, *what, results).into()
        }
        Directive::Sanitizer { id, check, size } => match results.size_of(id, size) {
            Ok(size) => crate::sanitizer_view::evaluate(id, check, size, results)
                .map_or_else(Value::from, |view| Value::Sanitizer(Box::new(view))),
            Err(mistake) => Value::Mistake(mistake),
        },
        Directive::Host { id, size } => match results.size_of(id, size) {
            Ok(size) => crate::host_view::evaluate(id, size, results)
                .map_or_else(Value::from, |view| Value::Host(Box::new(view))),
            Err(mistake) => Value::Mistake(mistake),
        },
        Directive::Allreduce { gpus } => {
            Value::Allreduce(Box::new(crate::allreduce_view::evaluate(*gpus, results)))
        }
        Directive::AllreduceFigure {
            gpus,
            implementation,
            field,
            bytes,
        } => crate::allreduce_view::figure(*gpus, implementation, *field, *bytes, results).into(),
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
fn measured_text(field: Field, s: &SizeResult, id: &str) -> Result<String, String> {
    let lacks = |what: &str| format!("`{id}` has no {what} at {}", s.size().words());
    Ok(match field {
        Field::Named(name) => figures::named(
            name,
            core_figures::value(s, name).ok_or_else(|| {
                format!(
                    "{}; it has {}",
                    lacks(&format!("figure `{name}`")),
                    core_figures::names_of(s).join(", ")
                )
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

/// Whether a stored report (`{{#peers}}`, `{{#repeatability}}`) is stale
/// only because examples it covers changed and now wait to be measured:
/// the author's pre-GPU build accepts that. A method change, an example
/// gone or broken, or a report that does not exist does not wait for a GPU
/// alone, and fails as before.
pub fn report_awaits_measuring(directive: &Directive, results: &Results<'_>) -> bool {
    let waits = |id: &str| {
        results
            .current(id)
            .is_some_and(|(_, outcome)| outcome.state().awaits_measuring())
    };
    match directive {
        Directive::Peers { problem } => results
            .stored()
            .peers(problem)
            .is_ok_and(|report| ours_of(&report).iter().any(|(id, _)| waits(id))),
        // A profile not collected yet, or collected for earlier code, waits
        // for the GPU machine's profiling run.
        Directive::Profile { id, size, .. } => results
            .size_of(id, size)
            .is_ok_and(|size| profile_awaits(id, size, results)),
        Directive::Repeatability => results.stored().repeatability().is_ok_and(|report| {
            report.method_version == cuda_measured_core::METHOD_VERSION
                && report
                    .keys
                    .iter()
                    .all(|(id, key)| match results.current(id) {
                        Some((now, _)) if now == key => true,
                        Some(_) => waits(id),
                        None => false,
                    })
        }),
        _ => false,
    }
}

/// Why a stored comparison no longer describes the book's kernel: the
/// example is gone, its code changed since (another key), or its own
/// record is not current.
fn peers_staleness(report: &peers::Report, results: &Results<'_>) -> Option<String> {
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
fn ours_of(report: &peers::Report) -> Vec<(String, String)> {
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

/// Why a stored repeatability report no longer describes the book: it was
/// measured with another method than the runner's now, or the code of an
/// example it compares changed since (another key), or the example is gone
/// from the book. A report written before reports carried their method and
/// keys is stale for that alone.
fn repeatability_staleness(
    report: &repeatability::Report,
    results: &Results<'_>,
) -> Option<String> {
    let now = cuda_measured_core::METHOD_VERSION;
    let mut reasons = Vec::new();
    match report.method_version {
        v if v == now => {}
        0 => reasons.push(format!(
            "written before reports recorded the measuring method (now v{now}) and the keys of the examples"
        )),
        v => reasons.push(format!(
            "the measuring method changed from v{v} to v{now} since it was measured"
        )),
    }
    let ids: std::collections::BTreeSet<&str> = report
        .keys
        .keys()
        .map(String::as_str)
        .chain(report.rows.iter().map(|r| r.example.as_str()))
        .collect();
    let (mut changed, mut gone) = (Vec::new(), Vec::new());
    for id in ids {
        match (results.current(id), report.keys.get(id)) {
            (None, _) => gone.push(id),
            // No key stored: only in reports written before keys, said above.
            (Some(_), None) if report.method_version == 0 => {}
            (Some((key, _)), stored) if stored.map(String::as_str) != Some(key) => {
                changed.push(id);
            }
            (Some(_), _) => {}
        }
    }
    if !changed.is_empty() {
        reasons.push(format!(
            "the code of {} changed since it was measured",
            changed.join(", ")
        ));
    }
    if !gone.is_empty() {
        reasons.push(format!(
            "{} {} no longer a runnable example of this book",
            gone.join(", "),
            if gone.len() == 1 { "is" } else { "are" }
        ));
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
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

/// A `{{#profile}}` figure: `metric` of the example's kernels in its
/// stored profile, when the profile is current and of `size`.
fn profile_figure(id: &str, metric: &str, size: Dims, results: &Results<'_>) -> Value {
    let (profile, values) = match profile_values(id, metric, size, results) {
        Ok(found) => found,
        Err(reason) => return Value::Unmeasured(reason),
    };
    let text = if let [(_, m)] = values.as_slice() {
        cuda_measured_core::profile::shown(m)
    } else {
        values
            .iter()
            .map(|(kernel, m)| {
                format!(
                    "{} {}",
                    short_kernel(kernel),
                    cuda_measured_core::profile::shown(m)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    Value::Figure {
        text,
        title: profile_title(&profile, metric),
    }
}

/// `metric` of every kernel of the current stored profile of `id` at
/// `size`, with the profile, or why there is none (not collected, of
/// earlier code, of another example, GPU or size, or without the counter).
pub fn profile_values(
    id: &str,
    metric: &str,
    size: Dims,
    results: &Results<'_>,
) -> Result<(cuda_measured_core::profile::Profile, Vec<(String, Metric)>), String> {
    let example = crate::names::example(results.catalog(), id)?;
    if let Some(undeclared) = crate::names::undeclared_size(example, size) {
        return Err(undeclared);
    }
    let Some((key, _)) = results.current(id) else {
        return Err(results.unknown_id(id));
    };
    let target = cuda_measured_core::limits::KnownGpu::target().name;
    let file = results
        .stored()
        .shown(&cuda_measured_core::profile::relative_path(
            id, size, target,
        ));
    let profile = results
        .stored()
        .profile(id, size)
        .map_err(|reason| format!("no profile of `{id}` was collected ({reason})"))?;
    if profile.example != id || profile.gpu != target {
        return Err(format!(
            "{file} holds a profile of `{}` on {}, not of `{id}` on {target}",
            profile.example, profile.gpu
        ));
    }
    if profile.key != key {
        return Err(format!(
            "{file} was profiled for an earlier version of `{id}`; profile it again on a GPU machine"
        ));
    }
    if profile.size() != size {
        return Err(format!(
            "`{id}` was profiled at {}, not {size}",
            profile.size().words()
        ));
    }
    let values: Vec<(String, Metric)> = profile
        .values(metric)
        .into_iter()
        .map(|(kernel, m)| (kernel.to_string(), m.clone()))
        .collect();
    if values.is_empty() {
        return Err(format!(
            "{file} has no `{metric}`: Nsight Compute did not collect it"
        ));
    }
    Ok((profile, values))
}

/// Whether the profile of `id` at `size` waits only for the GPU machine's
/// profiling run: none collected yet, or one of earlier code, for an
/// example of this book at a size it declares.
pub fn profile_awaits(id: &str, size: Dims, results: &Results<'_>) -> bool {
    let declared = crate::names::example(results.catalog(), id)
        .is_ok_and(|e| crate::names::undeclared_size(e, size).is_none());
    if !declared {
        return false;
    }
    match results.stored().profile(id, size) {
        Ok(p) => results.current(id).is_some_and(|(key, _)| key != p.key),
        Err(_) => results.current(id).is_some(),
    }
}

/// Where a profile figure comes from, for its tooltip.
pub fn profile_title(profile: &cuda_measured_core::profile::Profile, metric: &str) -> String {
    format!(
        "{metric} of {} at {}, Nsight Compute ({}, clocks not locked) on {}, {}",
        profile.example,
        profile.size().words(),
        profile.tool,
        profile.gpu,
        figures::date(&profile.measured_at)
    )
}

/// A kernel's name without its parameter list: `reduce_fast` for
/// `reduce_fast(const float *, float *, unsigned int)`.
fn short_kernel(name: &str) -> &str {
    name.split('(').next().unwrap_or(name).trim()
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
    use crate::catalog::Catalog;
    use crate::stored::StoredReports;
    use crate::test_support::{KERNEL, catalog_of, record, settings_in};
    use cuda_measured_core::declaration::Expectation;
    use cuda_measured_core::dims::Written;
    use cuda_measured_core::method::Ceilings;

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
            let catalog = catalog_of(&settings, &text);
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
                named: Default::default(),
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

    impl Book {
        /// Stores a profile of `id` measured with `key` at 2^28.
        fn store_profile(&self, id: &str, key: &str) {
            let profile = serde_json::json!({
                "schema": 1, "example": id, "key": key, "n": 268435456,
                "gpu": "NVIDIA H200", "tool": "ncu 2025.3", "measured_at": "2026-12-01T00:00:00Z",
                "kernels": [{"name": "tree(const float *, float *, unsigned int)",
                    "block": "(256, 1, 1)", "grid": "(1024, 1, 1)",
                    "metrics": {"dram__throughput.avg.pct_of_peak_sustained_elapsed":
                        {"unit": "%", "value": 96.94}}}]
            });
            let path = self
                .dir
                .path()
                .join(format!("results/profile/{id}/268435456.json"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, profile.to_string()).unwrap();
        }
    }

    // A current profile gives its counter; one of earlier code, of another
    // size, without the counter or not collected says so, and waits for
    // the GPU machine in an author's build.
    #[test]
    fn profiles_are_figures_only_when_current() {
        let book = Book::new();
        let profile = |metric: &str, size: u64| Directive::Profile {
            id: "fast".into(),
            metric: metric.into(),
            size: Size(size).into(),
        };
        let dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
        let unmeasured = |d: &Directive| match evaluate(d, &book.results()) {
            Value::Unmeasured(why) => why,
            other => panic!("not unmeasured: {other:?}"),
        };
        assert!(unmeasured(&profile(dram, 1 << 28)).starts_with("no profile of `fast`"));
        assert!(report_awaits_measuring(
            &profile(dram, 1 << 28),
            &book.results()
        ));
        book.store_profile("fast", "earlier");
        assert!(unmeasured(&profile(dram, 1 << 28)).contains("earlier version of `fast`"));
        book.store_profile("fast", &book.key_of("fast"));
        assert_eq!(
            text_of(evaluate(&profile(dram, 1 << 28), &book.results())),
            "96.9%"
        );
        assert!(!report_awaits_measuring(
            &profile(dram, 1 << 28),
            &book.results()
        ));
        // A size the example does not declare is said, and does not wait.
        assert_eq!(
            unmeasured(&profile(dram, 1 << 20)),
            "`fast` does not declare N = 2^20: its declared sizes are 2^28"
        );
        assert!(!report_awaits_measuring(
            &profile(dram, 1 << 20),
            &book.results()
        ));
        // A misspelt id gets the id meant.
        let typo = Directive::Profile {
            id: "fsat".into(),
            metric: dram.into(),
            size: Size(1 << 28).into(),
        };
        assert_eq!(
            unmeasured(&typo),
            "no example with id `fsat` in this book; did you mean `fast`?"
        );
        assert!(
            unmeasured(&profile("smsp__inst_executed.sum", 1 << 28)).contains("did not collect")
        );
    }

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
    }

    // A word no record has is refused where the directive is read, with
    // the one meant.
    #[test]
    fn unknown_figures_name_the_one_meant() {
        let err = crate::directives::parse("measured", &["a", "tflop", "2^20"]).unwrap_err();
        assert!(err.contains("did you mean `tflops`"), "{err}");
        let err = crate::directives::parse("measured", &["a", "ns_per_acess", "2^20"]).unwrap_err();
        assert!(err.contains("did you mean `ns_per_access`"), "{err}");
        assert!(crate::directives::parse("ceiling", &["a", "fp32_fma"]).is_ok());
        let err = crate::directives::parse("ceiling", &["a", "fp32_fmaa"]).unwrap_err();
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
            results.record("nope").unwrap_err(),
            "no example with id `nope` in this book"
        );
        assert_eq!(
            results.record("bad").unwrap_err(),
            "`bad` is broken: src/ch.md:17: no example header: start the kernel with a `/*+++ ... +++*/` comment holding problem, sizes and [[launch]] (see AUTHORING.md)"
        );
        let gone = results.record("r/gone").unwrap_err();
        assert!(
            gone.starts_with("`r/gone` is broken: src/ch.md:20: kernels/r/gone.cu:1: cannot read"),
            "{gone}"
        );
        assert_eq!(
            results.record("r/gnoe").unwrap_err(),
            "no example with id `r/gnoe` in this book; did you mean `r/gone`?"
        );
        assert_eq!(
            results.record("bda").unwrap_err(),
            "no example with id `bda` in this book; did you mean `bad`?"
        );
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

    // A repeatability report is current while the method and every
    // compared example's key are; otherwise it says why, and fails strict.
    #[test]
    fn repeatability_staleness_follows_method_and_keys() {
        let book = Book::new();
        let now = cuda_measured_core::METHOD_VERSION;
        let (fast, slow) = (book.key_of("fast"), book.key_of("slow"));
        let row = |id: &str| serde_json::json!({"example": id, "n": 1048576, "first_us": 30.0, "second_us": 30.3, "diff_pct": 1.0});
        let cases = [
            (
                "current",
                serde_json::json!(now),
                serde_json::json!({"fast": fast, "slow": slow}),
                vec![row("fast"), row("slow")],
                None,
            ),
            (
                "old method",
                serde_json::json!(now - 1),
                serde_json::json!({"fast": fast}),
                vec![row("fast")],
                Some(format!(
                    "the measuring method changed from v{} to v{now} since it was measured",
                    now - 1
                )),
            ),
            (
                "changed and gone",
                serde_json::json!(now),
                serde_json::json!({"fast": "an-old-key", "slow": slow, "gone": "k"}),
                vec![row("fast"), row("gone")],
                Some(
                    "the code of fast changed since it was measured; gone is no longer a runnable example of this book"
                        .to_string(),
                ),
            ),
            (
                "before method and keys",
                serde_json::Value::Null,
                serde_json::Value::Null,
                vec![row("fast")],
                Some(format!(
                    "written before reports recorded the measuring method (now v{now}) and the keys of the examples"
                )),
            ),
        ];
        std::fs::create_dir_all(book.dir.path().join("results")).unwrap();
        for (case, method, keys, rows, want) in cases {
            let mut report = serde_json::json!({
                "gpu": "NVIDIA H200", "measured_at": "2026-05-01T12:00:00Z", "rows": rows,
                "max_abs_diff_pct_over_floor": 3.5, "goal_met": false
            });
            if !method.is_null() {
                report["method_version"] = method;
                report["keys"] = keys;
            }
            std::fs::write(
                book.dir.path().join("results/repeatability.json"),
                report.to_string(),
            )
            .unwrap();
            let value = evaluate(&Directive::Repeatability, &book.results());
            let Value::Repeatability(r) = &value else {
                panic!("{case}: {value:?}")
            };
            assert!(!r.report.goal_met, "{case}");
            assert_eq!(r.stale, want, "{case}");
            assert_eq!(r.file, "results/repeatability.json");
            assert_eq!(
                value.problem(),
                want.map(|w| format!(
                    "results/repeatability.json: {w}; run bench/gpu-session.sh on a GPU machine"
                )),
                "{case}"
            );
        }
    }

    /// A book with one example `s` that sweeps STRIDE over 4, 1, 2 (in
    /// that declared order) at 2^28, its fresh record a row per value
    /// with the time 100 µs times the value.
    fn swept_book() -> (tempfile::TempDir, Catalog, Vec<Outcome>, StoredReports) {
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
