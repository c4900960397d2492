//! Inline directives that put measured figures into prose:
//!
//! - `{{#measured ID FIELD SIZE}}`: one figure of one example at one size
//!   (FIELD: `time`, `gbs`, `pct_peak`, `pct_ceiling`, `hot`, `spread`,
//!   `samples`, `error`);
//! - `{{#ratio ID_A ID_B SIZE}}`: time of A over time of B;
//! - `{{#ladder SIZE ID1 ID2 ...}}`: a bar chart of GB/s per example;
//! - `{{#ceiling ID FIELD}}`: a device figure measured alongside an example
//!   (FIELD: `read`, `copy`, `floor`);
//! - `{{#gpu}}`: the name of the GPU the book's results were measured on;
//! - `{{#peers PROBLEM}}`: the book's kernel against vendor libraries
//!   (chart, table and versions) from `results/peers/PROBLEM.json`;
//! - `{{#repeatability}}`: two back-to-back measuring runs compared, from
//!   `results/repeatability.json`;
//! - `{{#status}}`: every example of the book with its state, record and
//!   key figure, linked to its panel;
//! - `{{#exercise TRACK/STAGE}}`: a stage of a staged exercise, declared in
//!   `kernels/exercise/TRACK/STAGE.toml` (see [`crate::exercise_page`]);
//! - `{{#sass ID [KERNEL] [anchor=NAME]}}`: what the compiler made of a
//!   kernel, from `results/sass/ID.json`, the instructions compiled from
//!   the anchor's lines highlighted (see [`crate::artifacts::sass`]);
//! - `{{#sass_count ID [KERNEL] [anchor=NAME] WHAT}}`: one count of that
//!   listing in prose (WHAT: `instructions`, `predicated`, `branches`,
//!   `division`, `registers`);
//! - `{{#sanitizer ID CHECK SIZE}}`: what compute-sanitizer's CHECK found
//!   in a run of the example at SIZE, from
//!   `results/sanitizer/ID/CHECK-N.json` (see [`crate::artifacts::sanitizer`]);
//! - `{{#host ID SIZE}}`: the host programs of `bench/host/` in three
//!   languages, each with the command that ran it for the example at SIZE
//!   and what it printed, from `results/host/ID/LANGUAGE.json` (see
//!   [`crate::artifacts::host`]);
//! - `{{#quote SOURCE | TEXT}}`: another's figure, quoted with its source
//!   (a URL), rendered as TEXT with a link to it; `mdbook-cuda check`
//!   accepts it where it refuses a figure typed by hand
//!   ([`crate::typed_figures`]);
//! - `{{#allreduce GPUS}}`: the all-reduce across GPUS GPUs (chart of bus
//!   bandwidth against message size, table, facts) from
//!   `results/allreduce/<model>-<GPUS>gpu.json`, and
//!   `{{#allreduce_figure GPUS IMPL FIELD SIZE}}` one figure of it (see
//!   [`crate::artifacts::allreduce`], its arguments too).
//!
//! The arguments that belong to a stored-artifact kind (a SASS target and
//! count, a profiler metric, a sanitizer check, a peers problem, the
//! all-reduce's GPUs, implementation, figure and message) are read by the
//! kind's module of [`crate::artifacts`], with its typed mistakes; [`parse`]
//! dispatches to them. [`check`] lists the directives' mistakes that need
//! no GPU.
//!
//! Directives inside code (blocks or inline spans) are literal text.

pub use crate::artifacts::allreduce::AllreduceField;
pub use crate::artifacts::sass::{SassCount, SassTarget};
use crate::artifacts::{allreduce, peers, profile, sanitizer, sass};
use crate::directive_syntax::{form_name, occurrences, usage};
use crate::scan::ChapterScan;
use cuda_measured_core::dims::Written;
#[cfg(test)]
use cuda_measured_core::size::Size;
use cuda_measured_core::suggest::{closest, message};
use std::ops::Range;

pub use error::DirectiveError;

pub mod check;
mod error;
pub mod sweep_mistakes;

/// Which figure `{{#measured}}` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Median time.
    Time,
    /// Bandwidth in GB/s.
    Gbs,
    /// Bandwidth as a percentage of the datasheet peak.
    PctPeak,
    /// Bandwidth as a percentage of the read ceiling measured in the same run.
    PctCeiling,
    /// Hot median time (L2 warm, back to back), always labelled hot.
    Hot,
    /// Relative spread of the samples (standard deviation over mean).
    Spread,
    /// Number of samples kept.
    Samples,
    /// Error against the reference.
    Error,
    /// For an example launching thread-block clusters, how many of them
    /// the GPU holds resident at once (`cuOccupancyMaxActiveClusters`).
    Clusters,
    /// The median SM clock the size's samples ran at, read with each
    /// sample (MHz).
    SmClock,
    /// Another figure of the size, by the name
    /// `cuda_measured_core::figures::value` takes: `tflops`,
    /// `ns_per_access`, `cycles_per_access`, a rate such as
    /// `elements_per_s`. Which of them a record has depends on its
    /// problem, so an example is held to its own at evaluation.
    Named(&'static str),
}

impl Field {
    const NAMES: &'static str = "time, gbs, pct_peak, pct_ceiling, hot, spread, samples, error, clusters, sm_clock, tflops, ns_per_access, cycles_per_access or a rate such as elements_per_s";
    const WORDS: [&'static str; 17] = [
        "time",
        "gbs",
        "pct_peak",
        "pct_ceiling",
        "hot",
        "spread",
        "samples",
        "error",
        "clusters",
        "sm_clock",
        "tflops",
        "ns_per_access",
        "cycles_per_access",
        "elements_per_s",
        "rows_per_s",
        "flop_per_s",
        "accesses_per_s",
    ];

    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "time" => Field::Time,
            "gbs" => Field::Gbs,
            "pct_peak" => Field::PctPeak,
            "pct_ceiling" => Field::PctCeiling,
            "hot" => Field::Hot,
            "spread" => Field::Spread,
            "samples" => Field::Samples,
            "error" => Field::Error,
            "clusters" => Field::Clusters,
            "sm_clock" => Field::SmClock,
            other => Field::Named(Self::WORDS[10..].iter().find(|w| **w == other)?),
        })
    }

    /// The figure's name, as `cuda_measured_core::figures::value` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Time => "time",
            Field::Gbs => "gbs",
            Field::PctPeak => "pct_peak",
            Field::PctCeiling => "pct_ceiling",
            Field::Hot => "hot",
            Field::Spread => "spread",
            Field::Samples => "samples",
            Field::Error => "error",
            Field::Clusters => "clusters",
            Field::SmClock => "sm_clock",
            Field::Named(name) => name,
        }
    }
}

/// Which device figure `{{#ceiling}}` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CeilingField {
    /// Read-only streaming bandwidth.
    Read,
    /// Copy bandwidth (bytes read plus bytes written).
    Copy,
    /// Cold time of an empty kernel (the launch floor).
    Floor,
    /// A fact of the device the record was measured on, as the driver
    /// reports it: `sms` (multiprocessors), `l2` (L2 cache size) or
    /// `memory` (device memory).
    Device(&'static str),
    /// A named ceiling measured for the example's problem (`fp32_fma`,
    /// `h2d_pinned`, `d2h_pinned`), or with `_peak` the datasheet figure
    /// it compares with (`fp32_fma_peak`).
    Named(&'static str),
}

impl CeilingField {
    const NAMES: &'static str =
        "read, copy, floor, sms, l2, memory, fp32_fma, fp32_fma_peak, h2d_pinned or d2h_pinned";
    const WORDS: [&'static str; 10] = [
        "read",
        "copy",
        "floor",
        "sms",
        "l2",
        "memory",
        "fp32_fma",
        "fp32_fma_peak",
        "h2d_pinned",
        "d2h_pinned",
    ];

    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "read" => CeilingField::Read,
            "copy" => CeilingField::Copy,
            "floor" => CeilingField::Floor,
            "sms" | "l2" | "memory" => {
                CeilingField::Device(Self::WORDS[3..6].iter().find(|w| **w == word)?)
            }
            other => CeilingField::Named(Self::WORDS[6..].iter().find(|w| **w == other)?),
        })
    }
}

/// A parsed directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// `{{#measured ID FIELD SIZE}}`.
    Measured {
        /// Example id.
        id: String,
        /// Figure.
        field: Field,
        /// Size.
        size: Written,
    },
    /// `{{#ratio ID_A ID_B SIZE}}`.
    Ratio {
        /// Numerator example.
        a: String,
        /// Denominator example.
        b: String,
        /// Size.
        size: Written,
    },
    /// `{{#ladder SIZE ID...}}`.
    Ladder {
        /// Size.
        size: Written,
        /// Examples, one bar each, in order.
        ids: Vec<String>,
    },
    /// `{{#ceiling ID FIELD}}`.
    Ceiling {
        /// Example whose record holds the ceilings.
        id: String,
        /// Figure.
        field: CeilingField,
    },
    /// `{{#profile ID METRIC SIZE}}`.
    Profile {
        /// Example id.
        id: String,
        /// Nsight Compute metric, by its full name.
        metric: String,
        /// Size profiled.
        size: Written,
    },
    /// `{{#gpu}}`.
    Gpu,
    /// `{{#peers PROBLEM}}`.
    Peers {
        /// Problem compared (`sum_f32`), the name of its stored file.
        problem: String,
    },
    /// `{{#repeatability}}`.
    Repeatability,
    /// `{{#status}}`.
    Status,
    /// `{{#quote SOURCE | TEXT}}`: another's figure, with its source.
    Quote {
        /// Where it comes from: a URL.
        source: String,
        /// The figure as the source gives it, with any words around it.
        text: String,
    },
    /// `{{#exercise TRACK/STAGE}}`.
    Exercise {
        /// The stage's name, its file under `kernels/exercise/` without `.toml`.
        name: String,
    },
    /// `{{#sass ID [KERNEL] [anchor=NAME]}}`.
    Sass(SassTarget),
    /// `{{#sass_count ID [KERNEL] [anchor=NAME] WHAT}}`.
    SassCount {
        /// The listing and region counted.
        target: SassTarget,
        /// What is counted.
        what: SassCount,
    },
    /// `{{#sanitizer ID CHECK SIZE}}`.
    Sanitizer {
        /// Example id.
        id: String,
        /// compute-sanitizer's tool (one of
        /// `cuda_measured_core::sanitizer::CHECKS`).
        check: String,
        /// Size run.
        size: Written,
    },
    /// `{{#host ID SIZE}}`.
    Host {
        /// Example id.
        id: String,
        /// Size run.
        size: Written,
    },
    /// `{{#allreduce GPUS}}`.
    Allreduce {
        /// GPUs of the run, one rank each.
        gpus: usize,
    },
    /// `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`.
    AllreduceFigure {
        /// GPUs of the run.
        gpus: usize,
        /// `nccl`, `nccl-inplace`, `one-shot` or `two-shot`.
        implementation: String,
        /// Which figure.
        field: AllreduceField,
        /// The message, bytes.
        bytes: u64,
    },
}

impl Directive {
    /// Whether it renders a block that must stand alone on its line: a
    /// listing, a sanitizer report or the host programs. Its form, for the
    /// message saying so.
    pub fn block_form(&self) -> Option<&'static str> {
        match self {
            Directive::Sass(_) => Some("{{#sass}}"),
            Directive::Sanitizer { .. } => Some("{{#sanitizer}}"),
            Directive::Host { .. } => Some("{{#host}}"),
            _ => None,
        }
    }
}

impl Directive {
    /// Example ids the directive reads (without the value of a sweep an
    /// id may name, `ID@STRIDE=4`: [`crate::example_ref`]).
    pub fn ids(&self) -> Vec<&str> {
        self.written_ids().into_iter().map(example_id).collect()
    }

    /// Example ids as the directive writes them, with the value of a
    /// sweep where one is named (`ID@STRIDE=4`).
    pub fn written_ids(&self) -> Vec<&str> {
        match self {
            Directive::Measured { id, .. } => vec![id.as_str()],
            Directive::Ratio { a, b, .. } => vec![a.as_str(), b.as_str()],
            Directive::Ladder { ids, .. } => ids.iter().map(String::as_str).collect(),
            Directive::Ceiling { id, .. }
            | Directive::Profile { id, .. }
            | Directive::Sanitizer { id, .. }
            | Directive::Host { id, .. } => vec![id.as_str()],
            Directive::Sass(target) | Directive::SassCount { target, .. } => {
                vec![target.id.as_str()]
            }
            // The compared example is named in the stored file, not here.
            Directive::Gpu | Directive::Peers { .. } | Directive::Repeatability => Vec::new(),
            // The all-reduce kernels are not examples of the book.
            Directive::Allreduce { .. } | Directive::AllreduceFigure { .. } => Vec::new(),
            // Every example, none by name; an exercise's kernels are
            // entries of their own.
            Directive::Status | Directive::Exercise { .. } => Vec::new(),
            // Another's figure: nothing of the book's.
            Directive::Quote { .. } => Vec::new(),
        }
    }
}

pub use crate::example_ref::id_of as example_id;

/// A directive found in a chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Bytes of `{{#...}}`.
    pub range: Range<usize>,
    /// 1-based line.
    pub line: usize,
    /// The directive as written.
    pub text: String,
    /// What it asks for, or why it cannot be read (with the fix).
    pub parsed: Result<Directive, DirectiveError>,
}

/// Beginnings of the directive names this preprocessor owns (`measured`,
/// `ratio`, `ladder`, `ceiling`, `gpu`, `peers`, `repeatability`, `status`,
/// `profile`, `exercise`, `sass`, `sanitizer`, `host`, `allreduce`):
/// a name starting with one of these that is not exactly one of ours is a
/// typo (`measure`, `ratios`, `peer`), not another preprocessor's directive.
/// So is a name one or two letters from ours (`mesured`, `cieling`).
const OWNED_PREFIXES: [&str; 15] = [
    "measu", "ratio", "ladde", "ceil", "gpu", "peer", "repeat", "statu", "profil", "exerc", "sass",
    "sanit", "host", "allred", "quot",
];

/// Finds this preprocessor's directives outside code.
pub fn find(content: &str, scan: &ChapterScan) -> Vec<Found> {
    occurrences(content, scan)
        .into_iter()
        .filter(|o| {
            OWNED_PREFIXES.iter().any(|p| o.name.starts_with(p))
                || (!MDBOOK_DIRECTIVES.contains(&o.name)
                    && closest(o.name, known_names()).is_some())
        })
        .map(|o| Found {
            parsed: parse(o.name, &o.args),
            range: o.range,
            line: o.line,
            text: o.text.to_string(),
        })
        .collect()
}

/// Parses a directive's name and arguments.
pub fn parse(name: &str, args: &[&str]) -> Result<Directive, DirectiveError> {
    let size = |text: &str| {
        Written::parse(text).map_err(|error| DirectiveError::Size {
            text: text.to_string(),
            error,
        })
    };
    match (name, args) {
        ("measured", [id, field, n]) => Ok(Directive::Measured {
            id: id.to_string(),
            field: Field::parse(field).ok_or_else(|| {
                DirectiveError::Word(message(
                    &format!("`{field}` is not a figure"),
                    field,
                    Field::WORDS,
                    &format!("use {}", Field::NAMES),
                ))
            })?,
            size: size(n)?,
        }),
        ("measured", _) => Err(DirectiveError::Usage(usage(
            "measured ID FIELD SIZE",
            "e.g. {{#measured reductions/stride time 2^28}}",
        ))),
        ("ratio", [a, b, n]) => Ok(Directive::Ratio {
            a: a.to_string(),
            b: b.to_string(),
            size: size(n)?,
        }),
        ("ratio", _) => Err(DirectiveError::Usage(usage(
            "ratio ID_A ID_B SIZE",
            "the time of A over the time of B",
        ))),
        ("ladder", [n, ids @ ..]) if !ids.is_empty() => Ok(Directive::Ladder {
            size: size(n)?,
            ids: ids.iter().map(|s| s.to_string()).collect(),
        }),
        ("ladder", _) => Err(DirectiveError::Usage(usage(
            "ladder SIZE ID1 ID2 ...",
            "one bar per example, in order",
        ))),
        ("ceiling", [id, field]) => Ok(Directive::Ceiling {
            id: id.to_string(),
            field: CeilingField::parse(field).ok_or_else(|| {
                DirectiveError::Word(message(
                    &format!("`{field}` is not a ceiling"),
                    field,
                    CeilingField::WORDS,
                    &format!("use {}", CeilingField::NAMES),
                ))
            })?,
        }),
        ("ceiling", _) => Err(DirectiveError::Usage(usage(
            "ceiling ID FIELD",
            "FIELD is read, copy, floor, a device fact (sms, l2, memory) or a named ceiling (fp32_fma, fp32_fma_peak, h2d_pinned, d2h_pinned), e.g. {{#ceiling reductions/stride read}}",
        ))),
        ("profile", [id, metric, n]) => Ok(Directive::Profile {
            id: id.to_string(),
            metric: profile::parse_metric(metric)?,
            size: size(n)?,
        }),
        ("profile", _) => Err(DirectiveError::Usage(profile::usage())),
        ("gpu", []) => Ok(Directive::Gpu),
        ("gpu", _) => Err(DirectiveError::Usage(usage("gpu", "it takes no arguments"))),
        ("peers", args) => peers::parse(args)
            .map(|problem| Directive::Peers { problem })
            .map_err(DirectiveError::from),
        ("repeatability", []) => Ok(Directive::Repeatability),
        ("repeatability", _) => Err(DirectiveError::Usage(usage(
            "repeatability",
            "it takes no arguments",
        ))),
        ("status", []) => Ok(Directive::Status),
        ("status", _) => Err(DirectiveError::Usage(usage(
            "status",
            "it takes no arguments",
        ))),
        ("quote", [source, "|", text @ ..])
            if !text.is_empty()
                && (source.starts_with("https://") || source.starts_with("http://")) =>
        {
            Ok(Directive::Quote {
                source: source.to_string(),
                text: text.join(" "),
            })
        }
        ("quote", _) => Err(DirectiveError::Usage(usage(
            "quote SOURCE | TEXT",
            "SOURCE the URL the figure is quoted from, TEXT the figure as it gives it, e.g. {{#quote https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf | 8.054 ms}}",
        ))),
        ("exercise", [name]) => Ok(Directive::Exercise {
            name: name.to_string(),
        }),
        ("exercise", _) => Err(DirectiveError::Usage(usage(
            "exercise TRACK/STAGE",
            "one stage, read from kernels/exercise/TRACK/STAGE.toml, e.g. {{#exercise reduction/stage3}}",
        ))),
        ("sass", args) => sass::parse(args)
            .map(Directive::Sass)
            .map_err(DirectiveError::from),
        ("sass_count", args) => sass::parse_count(args)
            .map(|(target, what)| Directive::SassCount { target, what })
            .map_err(DirectiveError::from),
        ("sanitizer", [id, check, n]) => Ok(Directive::Sanitizer {
            id: id.to_string(),
            check: sanitizer::parse_check(check)?,
            size: size(n)?,
        }),
        ("sanitizer", _) => Err(DirectiveError::Usage(sanitizer::usage())),
        ("host", [id, n]) => Ok(Directive::Host {
            id: id.to_string(),
            size: size(n)?,
        }),
        ("host", _) => Err(DirectiveError::Usage(crate::artifacts::host::usage())),
        ("allreduce", args) => allreduce::parse_report(args)
            .map(|gpus| Directive::Allreduce { gpus })
            .map_err(DirectiveError::from),
        ("allreduce_figure", args) => allreduce::parse_figure(args)
            .map(|f| Directive::AllreduceFigure {
                gpus: f.gpus,
                implementation: f.implementation,
                field: f.field,
                bytes: f.bytes,
            })
            .map_err(DirectiveError::from),
        _ => Err(DirectiveError::Unknown {
            name: name.to_string(),
        }),
    }
}

/// An unknown directive, with the one most likely meant (a typo, or a
/// name that starts or ends differently: `measure`, `repeat`, `gpus`), or
/// else every directive of the book.
pub(crate) fn unknown_directive(name: &str) -> String {
    let what = format!("unknown directive `{{{{#{name}}}}}`");
    let meant = closest(name, known_names()).or_else(|| {
        known_names().find(|k| name.len() >= 3 && (k.starts_with(name) || name.starts_with(k)))
    });
    match meant.and_then(|m| KNOWN.iter().find(|form| form_name(form) == m)) {
        Some(form) => format!("{what}; did you mean `{form}`?"),
        None => format!("{what}: this book knows {}", KNOWN.join(", ")),
    }
}

/// The names of this book's directives.
fn known_names() -> impl Iterator<Item = &'static str> {
    KNOWN.iter().map(|form| form_name(form))
}

/// mdBook's own directives, never taken for a typo of ours.
const MDBOOK_DIRECTIVES: [&str; 4] = ["include", "rustdoc_include", "playground", "title"];

/// Every directive's form, for the unknown-directive message.
const KNOWN: [&str; 17] = [
    "{{#measured ID FIELD SIZE}}",
    "{{#ratio ID_A ID_B SIZE}}",
    "{{#ladder SIZE ID...}}",
    "{{#ceiling ID FIELD}}",
    "{{#profile ID METRIC SIZE}}",
    "{{#gpu}}",
    "{{#peers PROBLEM}}",
    "{{#repeatability}}",
    "{{#status}}",
    "{{#exercise TRACK/STAGE}}",
    "{{#sass ID [KERNEL] [anchor=NAME]}}",
    "{{#sass_count ID [KERNEL] [anchor=NAME] WHAT}}",
    "{{#sanitizer ID CHECK SIZE}}",
    "{{#host ID SIZE}}",
    "{{#allreduce GPUS}}",
    "{{#allreduce_figure GPUS IMPL FIELD SIZE}}",
    "{{#quote SOURCE | TEXT}}",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::scan;

    fn found(text: &str) -> Vec<Found> {
        find(text, &scan(text))
    }

    fn sass_of(id: &str, kernel: Option<&str>, anchor: Option<&str>) -> SassTarget {
        SassTarget {
            id: id.into(),
            kernel: kernel.map(str::to_string),
            anchor: anchor.map(str::to_string),
        }
    }

    // Well-formed directives parse to what they ask for.
    #[test]
    fn well_formed_directives() {
        let cases = [
            (
                "{{#measured r/stride time 2^28}}",
                Directive::Measured {
                    id: "r/stride".into(),
                    field: Field::Time,
                    size: Size(1 << 28).into(),
                },
            ),
            (
                "{{ #measured a pct_peak 1000003 }}",
                Directive::Measured {
                    id: "a".into(),
                    field: Field::PctPeak,
                    size: Size(1000003).into(),
                },
            ),
            (
                "{{#ratio a b 2^20}}",
                Directive::Ratio {
                    a: "a".into(),
                    b: "b".into(),
                    size: Size(1 << 20).into(),
                },
            ),
            (
                "{{#ladder 2^28 a b c}}",
                Directive::Ladder {
                    size: Size(1 << 28).into(),
                    ids: vec!["a".into(), "b".into(), "c".into()],
                },
            ),
            (
                "{{#measured a pct_ceiling 2^28}}",
                Directive::Measured {
                    id: "a".into(),
                    field: Field::PctCeiling,
                    size: Size(1 << 28).into(),
                },
            ),
            (
                "{{#measured a hot 2^28}}",
                Directive::Measured {
                    id: "a".into(),
                    field: Field::Hot,
                    size: Size(1 << 28).into(),
                },
            ),
            (
                "{{#measured a spread 2^28}}",
                Directive::Measured {
                    id: "a".into(),
                    field: Field::Spread,
                    size: Size(1 << 28).into(),
                },
            ),
            (
                "{{#measured a samples 2^28}}",
                Directive::Measured {
                    id: "a".into(),
                    field: Field::Samples,
                    size: Size(1 << 28).into(),
                },
            ),
            (
                "{{#ceiling r/stride read}}",
                Directive::Ceiling {
                    id: "r/stride".into(),
                    field: CeilingField::Read,
                },
            ),
            (
                "{{#ceiling a copy}}",
                Directive::Ceiling {
                    id: "a".into(),
                    field: CeilingField::Copy,
                },
            ),
            (
                "{{#ceiling a floor}}",
                Directive::Ceiling {
                    id: "a".into(),
                    field: CeilingField::Floor,
                },
            ),
            ("{{#gpu}}", Directive::Gpu),
            (
                "{{#peers sum_f32}}",
                Directive::Peers {
                    problem: "sum_f32".into(),
                },
            ),
            ("{{ #repeatability }}", Directive::Repeatability),
            ("{{#status}}", Directive::Status),
            (
                "{{#exercise reduction/stage3}}",
                Directive::Exercise {
                    name: "reduction/stage3".into(),
                },
            ),
            (
                "{{#sass r/tree}}",
                Directive::Sass(sass_of("r/tree", None, None)),
            ),
            (
                "{{#sass r/tree anchor=fold}}",
                Directive::Sass(sass_of("r/tree", None, Some("fold"))),
            ),
            (
                "{{#sass r/two final_sum anchor=fold}}",
                Directive::Sass(sass_of("r/two", Some("final_sum"), Some("fold"))),
            ),
            (
                "{{#sass r/two anchor=fold final_sum}}",
                Directive::Sass(sass_of("r/two", Some("final_sum"), Some("fold"))),
            ),
            (
                "{{#sass_count r/tree anchor=fold division}}",
                Directive::SassCount {
                    target: sass_of("r/tree", None, Some("fold")),
                    what: SassCount::Division,
                },
            ),
            (
                "{{#sass_count r/two final_sum registers}}",
                Directive::SassCount {
                    target: sass_of("r/two", Some("final_sum"), None),
                    what: SassCount::Registers,
                },
            ),
            (
                "{{#sass_count r/tree predicated}}",
                Directive::SassCount {
                    target: sass_of("r/tree", None, None),
                    what: SassCount::Predicated,
                },
            ),
            (
                "{{#sanitizer r/race racecheck 2^22}}",
                Directive::Sanitizer {
                    id: "r/race".into(),
                    check: "racecheck".into(),
                    size: Size(1 << 22).into(),
                },
            ),
            (
                "{{#sanitizer r/race memcheck 1000003}}",
                Directive::Sanitizer {
                    id: "r/race".into(),
                    check: "memcheck".into(),
                    size: Size(1000003).into(),
                },
            ),
            (
                "{{#host r/tree 2^22}}",
                Directive::Host {
                    id: "r/tree".into(),
                    size: Size(1 << 22).into(),
                },
            ),
            ("{{#allreduce 2}}", Directive::Allreduce { gpus: 2 }),
            (
                "{{#allreduce_figure 2 one-shot busbw 256KiB}}",
                Directive::AllreduceFigure {
                    gpus: 2,
                    implementation: "one-shot".into(),
                    field: AllreduceField::Busbw,
                    bytes: 256 << 10,
                },
            ),
        ];
        for (text, want) in cases {
            let got = found(text);
            assert_eq!(got.len(), 1, "{text}");
            assert_eq!(got[0].parsed, Ok(want), "{text}");
            assert_eq!(got[0].range, 0..text.len(), "{text}");
        }
    }

    // Typos in our directives are errors that show the right form.
    #[test]
    fn malformed_directives() {
        let cases = [
            ("{{#measured a time}}", "{{#measured ID FIELD SIZE}}"),
            (
                "{{#measured a velocity 2^20}}",
                "time, gbs, pct_peak, pct_ceiling, hot, spread, samples, error, clusters, sm_clock, tflops, ns_per_access, cycles_per_access or a rate",
            ),
            ("{{#measured a time 2^x}}", "\"2^20\""),
            (
                "{{#measure a time 2^20}}",
                "unknown directive `{{#measure}}`",
            ),
            ("{{#measured_time a 2^20}}", "unknown directive"),
            ("{{#ratios a b 2^20}}", "unknown directive"),
            ("{{#ladder 2^20}}", "{{#ladder SIZE ID1 ID2 ...}}"),
            ("{{#gpu x}}", "no arguments"),
            ("{{#gpus}}", "unknown directive"),
            ("{{#ceiling a}}", "{{#ceiling ID FIELD}}"),
            (
                "{{#ceiling a write}}",
                "read, copy, floor, sms, l2, memory, fp32_fma",
            ),
            ("{{#ceilings a read}}", "unknown directive"),
            ("{{#peers}}", "{{#peers PROBLEM}}"),
            ("{{#peers a b}}", "{{#peers PROBLEM}}"),
            ("{{#peers ../x}}", "{{#peers PROBLEM}}"),
            ("{{#peer sum_f32}}", "unknown directive"),
            ("{{#repeatability x}}", "no arguments"),
            ("{{#repeat}}", "{{#repeatability}}"),
            ("{{#status all}}", "no arguments"),
            ("{{#statuses}}", "{{#status}}"),
            ("{{#exercise}}", "{{#exercise TRACK/STAGE}}"),
            ("{{#exercise a b}}", "{{#exercise TRACK/STAGE}}"),
            (
                "{{#excercise a/b}}",
                "did you mean `{{#exercise TRACK/STAGE}}`?",
            ),
            ("{{#sass}}", "{{#sass ID [KERNEL] [anchor=NAME]}}"),
            ("{{#sass a k1 k2}}", "{{#sass ID [KERNEL] [anchor=NAME]}}"),
            (
                "{{#sass a anchor=x anchor=y}}",
                "{{#sass ID [KERNEL] [anchor=NAME]}}",
            ),
            ("{{#sass a anchor=}}", "{{#sass ID [KERNEL] [anchor=NAME]}}"),
            (
                "{{#sass anchor=fold}}",
                "{{#sass ID [KERNEL] [anchor=NAME]}}",
            ),
            (
                "{{#sass_count a}}",
                "{{#sass_count ID [KERNEL] [anchor=NAME] WHAT}}",
            ),
            (
                "{{#sass_count a anchor=fold}}",
                "instructions, predicated, branches, division, registers or stack",
            ),
            (
                "{{#sass_count a anchor=fold registers}}",
                "registers and stack are counted for the whole kernel",
            ),
            (
                "{{#sas a}}",
                "did you mean `{{#sass ID [KERNEL] [anchor=NAME]}}`?",
            ),
            ("{{#sanitizer a racecheck}}", "{{#sanitizer ID CHECK SIZE}}"),
            ("{{#sanitizer a 2^22}}", "{{#sanitizer ID CHECK SIZE}}"),
            ("{{#sanitizer a racecheck 2^x}}", "\"2^20\""),
            ("{{#host a}}", "{{#host ID SIZE}}"),
            ("{{#host a 2^22 rust}}", "{{#host ID SIZE}}"),
            ("{{#host a 2^y}}", "\"2^20\""),
            ("{{#hosts a 2^22}}", "unknown directive"),
        ];
        for (text, want) in cases {
            let got = found(text);
            assert_eq!(got.len(), 1, "{text}");
            let err = got[0].parsed.clone().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    // A misspelt directive or field names the one most likely meant, with
    // its form; a name near nothing lists every directive.
    #[test]
    fn typos_name_the_directive_or_field_meant() {
        let cases = [
            (
                "{{#mesured a time 2^20}}",
                "unknown directive `{{#mesured}}`; did you mean `{{#measured ID FIELD SIZE}}`?",
            ),
            (
                "{{#measure a time 2^20}}",
                "unknown directive `{{#measure}}`; did you mean `{{#measured ID FIELD SIZE}}`?",
            ),
            (
                "{{#measured_time a 2^20}}",
                "unknown directive `{{#measured_time}}`; did you mean `{{#measured ID FIELD SIZE}}`?",
            ),
            (
                "{{#cieling a read}}",
                "unknown directive `{{#cieling}}`; did you mean `{{#ceiling ID FIELD}}`?",
            ),
            (
                "{{#raito a b 2^20}}",
                "unknown directive `{{#raito}}`; did you mean `{{#ratio ID_A ID_B SIZE}}`?",
            ),
            (
                "{{#repeat}}",
                "unknown directive `{{#repeat}}`; did you mean `{{#repeatability}}`?",
            ),
            (
                "{{#gpus}}",
                "unknown directive `{{#gpus}}`; did you mean `{{#gpu}}`?",
            ),
            (
                "{{#measured a tme 2^20}}",
                "`tme` is not a figure; did you mean `time`?",
            ),
            (
                "{{#measured a pct_peek 2^20}}",
                "`pct_peek` is not a figure; did you mean `pct_peak`?",
            ),
            (
                "{{#measured a bandwidth 2^20}}",
                "`bandwidth` is not a figure: use time, gbs, pct_peak, pct_ceiling, hot, spread, samples, error, clusters, sm_clock, tflops, ns_per_access, cycles_per_access or a rate such as elements_per_s",
            ),
            (
                "{{#ceiling a flor}}",
                "`flor` is not a ceiling; did you mean `floor`?",
            ),
            (
                "{{#sass a ancor=fold}}",
                "`ancor=` is not an attribute of {{#sass}}; did you mean `anchor`?",
            ),
            (
                "{{#sass_count a kernel=k division}}",
                "`kernel=` is not an attribute of {{#sass_count}}: write `{{#sass_count ID [KERNEL] [anchor=NAME] WHAT}}`",
            ),
            (
                "{{#sass_count a anchor=fold divsion}}",
                "`divsion` is not a count; did you mean `division`?",
            ),
            (
                "{{#sass_cuont a division}}",
                "unknown directive `{{#sass_cuont}}`; did you mean `{{#sass_count ID [KERNEL] [anchor=NAME] WHAT}}`?",
            ),
            (
                "{{#sanitizer a racechek 2^22}}",
                "`racechek` is not a compute-sanitizer check; did you mean `racecheck`?",
            ),
            (
                "{{#sanitizer a coverage 2^22}}",
                "`coverage` is not a compute-sanitizer check: use racecheck, memcheck, synccheck, initcheck",
            ),
            (
                "{{#sanitiser a racecheck 2^22}}",
                "unknown directive `{{#sanitiser}}`; did you mean `{{#sanitizer ID CHECK SIZE}}`?",
            ),
            (
                "{{#hots a 2^22}}",
                "unknown directive `{{#hots}}`; did you mean `{{#host ID SIZE}}`?",
            ),
            (
                "{{#allreduse 2}}",
                "unknown directive `{{#allreduse}}`; did you mean `{{#allreduce GPUS}}`?",
            ),
            (
                "{{#allreduce_figures 2 nccl time 8}}",
                "unknown directive `{{#allreduce_figures}}`; did you mean `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`?",
            ),
        ];
        for (text, want) in cases {
            let got = found(text);
            assert_eq!(got.len(), 1, "{text}");
            assert_eq!(
                got[0].parsed.clone().map_err(|e| e.to_string()),
                Err(want.to_string()),
                "{text}"
            );
        }
        let unknown = parse("measurements", &[]).unwrap_err().to_string();
        assert!(
            unknown.starts_with(
                "unknown directive `{{#measurements}}`: this book knows {{#measured ID FIELD SIZE}}, {{#ratio"
            ),
            "{unknown}"
        );
    }

    // Other preprocessors' directives, code and escaped directives are left alone.
    // A quoted figure keeps its source and its words; one without a URL,
    // without the bar or without text is refused with the form to write.
    #[test]
    fn quotes_name_their_source() {
        let quote = found("{{#quote https://x.org/slides.pdf | 8.054 ms on a G80}}");
        assert_eq!(
            quote[0].parsed,
            Ok(Directive::Quote {
                source: "https://x.org/slides.pdf".into(),
                text: "8.054 ms on a G80".into()
            })
        );
        for bad in [
            "{{#quote Harris | 8.054 ms}}",
            "{{#quote https://x.org 8.054 ms}}",
            "{{#quote https://x.org |}}",
        ] {
            let Err(DirectiveError::Usage(message)) = &found(bad)[0].parsed else {
                panic!("{bad} parsed");
            };
            assert!(message.contains("{{#quote SOURCE | TEXT}}"), "{message}");
        }
    }

    #[test]
    fn what_is_not_ours() {
        let text = "{{#include a.rs}} {{#title T}} {{#playground a.rs}} {{#rustdoc_include a.rs:2}} {{#template t.md}} `{{#gpu}}` \\{{#gpu}}\n\n```\n{{#gpu}}\n```\n\n    {{#gpu}}\n";
        assert!(found(text).is_empty());
    }

    // Directives get their line, counted as the author's editor counts.
    #[test]
    fn directives_know_their_line() {
        let text = "Größe\r\n\r\nOn {{#gpu}} it took {{#measured a time 2^20}}.\r\n";
        let got = found(text);
        assert_eq!(got.iter().map(|f| f.line).collect::<Vec<_>>(), [3, 3]);
        assert_eq!(&text[got[1].range.clone()], "{{#measured a time 2^20}}");
    }

    // A value of a swept example is written after its id (`ID@NAME=VALUE`):
    // the directive keeps it as written, and the ids it reads are the
    // examples' own, so the catalog finds them.
    #[test]
    fn a_value_of_a_sweep_rides_on_the_id() {
        let got = found(
            "{{#measured s@STRIDE=4 time 2^20}} {{#ladder 2^20 s p@N=1}} {{#ratio s@STRIDE=1 s@STRIDE=2 2^20}}",
        );
        let parsed: Vec<&Directive> = got.iter().map(|f| f.parsed.as_ref().unwrap()).collect();
        assert!(matches!(parsed[0], Directive::Measured { id, .. } if id == "s@STRIDE=4"));
        assert_eq!(parsed[0].ids(), ["s"]);
        assert_eq!(parsed[1].ids(), ["s", "p"]);
        assert_eq!(parsed[2].ids(), ["s", "s"]);
    }
}
