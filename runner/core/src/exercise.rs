//! A stage of a staged exercise, declared as data in
//! `kernels/exercise/<track>/<stage>.toml`: its title and size, the
//! starter and solution kernels (ordinary examples under `kernels/`), the
//! goal, lesson, pitfalls (optionally with a kernel that shows the
//! mistake), hints, what the reader learns, the counts read off the stored
//! launches, and the gates the solution must pass. Every error names the
//! file, the line and the fix, with the word most likely meant.
//!
//! The book shows a stage with `{{#exercise TRACK/STAGE}}` (AUTHORING.md
//! §7); the preprocessor registers its kernels as examples and judges the
//! gates against the store.

use crate::dims::{Dim, Dims, DimsError, Written};
use crate::size::Size;
use crate::suggest;
use serde::Deserialize;
use std::path::{Component, Path, PathBuf};
use toml::Spanned;

/// The folder under the kernels folder that holds the exercises.
pub const EXERCISES_DIR: &str = "exercise";

/// A stage, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// Its name as the directive writes it: `reduction/stage3`.
    pub name: String,
    /// Its file as messages show it: `kernels/exercise/reduction/stage3.toml`.
    pub file: String,
    /// The heading the page shows.
    pub title: String,
    /// The size the table and every gate read. A size of one value is
    /// read when the file is; one of several dimensions (`"4096x4096"`) is
    /// read against the starter's problem by [`Stage::resolve_size`], and
    /// until then holds the product of its values as one dimension.
    pub size: Dims,
    /// The size as the stage file writes it.
    pub size_written: Written,
    /// The line of `size` in the stage file, for messages.
    pub size_line: usize,
    /// What to change, in markdown.
    pub goal: Text,
    /// What the reader will learn, one markdown item each.
    pub learn: Vec<Text>,
    /// Why the change works, in markdown.
    pub lesson: Text,
    /// Hints, shown folded, in order.
    pub hints: Vec<Text>,
    /// The kernel the reader starts from.
    pub starter: KernelRef,
    /// The reference solution.
    pub solution: KernelRef,
    /// Where correct-looking code goes wrong.
    pub pitfalls: Vec<Pitfall>,
    /// Counts read off the stored launches of starter and solution.
    pub counts: Vec<Count>,
    /// The gates, correctness first.
    pub gates: Vec<Gate>,
}

/// Markdown written in a stage file, with the line its first line is on
/// (so that a directive in it is reported at its own line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The markdown.
    pub text: String,
    /// 1-based line of its first line in the stage file.
    pub line: usize,
}

/// A kernel file a stage names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelRef {
    /// Path relative to the kernels folder: `exercise/reduction/stage3_solution.cu`.
    pub path: String,
    /// 1-based line of the stage file that names it.
    pub line: usize,
}

impl Stage {
    /// Reads the stage's size as a size of `dims`, the dimensions of its
    /// starter's problem: `"4096x4096"` of a transpose's `rows`, `cols`.
    pub fn resolve_size(&mut self, dims: &'static [Dim]) -> Result<(), DimsError> {
        self.size = self.size_written.resolve(dims)?;
        Ok(())
    }
}

impl KernelRef {
    /// The example id of the kernel: its path without `.cu`.
    pub fn id(&self) -> &str {
        crate::example::default_id(&self.path)
    }
}

/// A pitfall: a title, markdown, and optionally a kernel that makes the
/// mistake, measured like any example (it declares `expect = "wrong"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pitfall {
    /// Its title.
    pub title: String,
    /// What goes wrong and why, in markdown.
    pub text: Text,
    /// The kernel that shows it.
    pub kernel: Option<KernelRef>,
}

/// A count of the table read off a stored launch (`atomicAdd` calls: one
/// per thread in the starter, one per block in the solution).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count {
    /// What is counted, as the table's row heading (markdown code allowed).
    pub what: String,
    /// How many the starter makes.
    pub starter: PerLaunch,
    /// How many the solution makes.
    pub solution: PerLaunch,
    /// 1-based line of its table.
    pub line: usize,
}

/// One of something per thread, warp or block of an example's first launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerLaunch {
    /// One per thread: grid x block.
    Threads,
    /// One per warp of 32 threads.
    Warps,
    /// One per block.
    Blocks,
}

impl PerLaunch {
    const WORDS: [&'static str; 3] = ["threads", "warps", "blocks"];

    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "threads" => PerLaunch::Threads,
            "warps" => PerLaunch::Warps,
            "blocks" => PerLaunch::Blocks,
            _ => return None,
        })
    }

    /// `thread`, `warp`, `block`.
    pub fn unit(self) -> &'static str {
        match self {
            PerLaunch::Threads => "thread",
            PerLaunch::Warps => "warp",
            PerLaunch::Blocks => "block",
        }
    }

    /// How many for a launch of `grid` blocks of `block` threads.
    pub fn of(self, grid: u64, block: u64) -> u64 {
        match self {
            PerLaunch::Threads => grid * block,
            PerLaunch::Warps => grid * block.div_ceil(32),
            PerLaunch::Blocks => grid,
        }
    }
}

/// What a time or counter is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// The stage's own starter.
    Starter,
    /// Another stage's solution.
    Stage {
        /// That stage's name (`reduction/stage2`).
        name: String,
        /// Its solution.
        solution: KernelRef,
    },
}

/// A gate and the line of its table.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// What it holds the kernel to.
    pub kind: GateKind,
    /// 1-based line of its `[[gate]]` table (of `solution` for the implicit
    /// correctness gate).
    pub line: usize,
}

/// What a gate holds a kernel to, at the stage's size.
#[derive(Debug, Clone, PartialEq)]
pub enum GateKind {
    /// Passes the problem's check at the size and every edge size.
    Correct,
    /// A Nsight Compute counter of the stored profile within bounds.
    Profile {
        /// Short name (`sm`).
        metric: String,
        /// At least this.
        min: Option<f64>,
        /// At most this.
        max: Option<f64>,
    },
    /// A counter over the same counter of a baseline, within bounds.
    ProfileRatio {
        /// Short name (`instructions`).
        metric: String,
        /// The divisor.
        over: Baseline,
        /// At least this ratio.
        min: Option<f64>,
        /// At most this ratio.
        max: Option<f64>,
    },
    /// The baseline's median time over this kernel's, at least `min`.
    Speedup {
        /// The slower kernel.
        over: Baseline,
        /// Smallest speed-up that passes.
        min: f64,
    },
    /// Median time at most `max_us`.
    Time {
        /// Microseconds.
        max_us: f64,
    },
    /// Percentage of the read ceiling measured in the same run, at least `min`.
    PctCeiling {
        /// Percent.
        min: f64,
    },
    /// A count of the stored SASS listing of the kernel (no GPU, no drift:
    /// a property of the code), within bounds.
    Sass {
        /// What is counted.
        count: SassWhat,
        /// At least this many.
        min: Option<f64>,
        /// At most this many.
        max: Option<f64>,
    },
    /// Median time over a vendor library's (from `results/peers/`), at most `max`.
    Peer {
        /// The peer's key in the stored comparison (`cub`).
        peer: String,
        /// Largest ratio that passes (1.0: match or beat).
        max: f64,
    },
}

/// What a `sass` gate counts in a kernel's stored listing (padding left
/// out, as `{{#sass_count}}` counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SassWhat {
    /// Every instruction.
    Instructions,
    /// Instructions of integer division or modulo sequences.
    Division,
    /// Bytes of static shared memory per block, as the listing gives them
    /// (on sm_90 with the 1 KiB the system reserves in a block that uses
    /// shared memory): not an instruction count, but as much a property
    /// of the code, so it does not drift either.
    SharedBytes,
    /// Instructions whose opcode is this one or begins with it and a dot:
    /// `SHFL` counts `SHFL.DOWN`, `LDG.E.128` counts `LDG.E.128.CONSTANT`.
    Opcode(String),
}

impl SassWhat {
    /// Reads `instructions`, `division`, `shared` (static shared memory
    /// bytes) or an opcode in capitals (`SHFL`, `LDG.E.128`).
    pub fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "instructions" => SassWhat::Instructions,
            "division" => SassWhat::Division,
            "shared" => SassWhat::SharedBytes,
            opcode
                if !opcode.is_empty()
                    && opcode.split('.').all(|part| {
                        !part.is_empty()
                            && part
                                .chars()
                                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    })
                    && opcode.starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                SassWhat::Opcode(opcode.to_string())
            }
            _ => return None,
        })
    }

    /// Whether an instruction whose opcode with modifiers is `opcode`
    /// (`SHFL.DOWN`) is one of an [`SassWhat::Opcode`].
    pub fn matches_opcode(wanted: &str, opcode: &str) -> bool {
        opcode == wanted
            || opcode
                .strip_prefix(wanted)
                .is_some_and(|rest| rest.starts_with('.'))
    }

    /// In words, for a gate's row: `SHFL instructions`.
    pub fn words(&self) -> String {
        match self {
            SassWhat::Instructions => "SASS instructions".into(),
            SassWhat::Division => "SASS instructions of integer division or modulo".into(),
            SassWhat::SharedBytes => "bytes of static shared memory per block".into(),
            SassWhat::Opcode(op) => format!("`{op}` instructions in the SASS"),
        }
    }
}

/// The gate kinds, as stage files write them.
const GATE_KINDS: [&str; 8] = [
    "correct",
    "profile",
    "profile_ratio",
    "speedup",
    "time",
    "pct_ceiling",
    "peer",
    "sass",
];

/// Why a stage cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StageError {
    /// The directive names no stage file; the caller adds its own place.
    #[error("{0}")]
    NotFound(String),
    /// The stage file is wrong at a line.
    #[error("{file}:{line}: {message}")]
    At {
        /// The stage file as shown.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong and how to fix it.
        message: String,
    },
}

/// The file of stage `name` under `kernels_dir`.
pub fn stage_path(kernels_dir: &Path, name: &str) -> PathBuf {
    kernels_dir.join(EXERCISES_DIR).join(format!("{name}.toml"))
}

/// Every stage name under `kernels_dir` (`reduction/stage1`, ...), sorted.
pub fn stage_names(kernels_dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(&path, &format!("{prefix}{name}/"), out);
            } else if let Some(stem) = name.strip_suffix(".toml") {
                out.push(format!("{prefix}{stem}"));
            }
        }
    }
    let mut out = Vec::new();
    walk(&kernels_dir.join(EXERCISES_DIR), "", &mut out);
    out.sort();
    out
}

/// Reads and validates stage `name` (`reduction/stage3`). `book_root`
/// only shortens the paths messages show.
pub fn load(book_root: &Path, kernels_dir: &Path, name: &str) -> Result<Stage, StageError> {
    let path = checked_stage_path(kernels_dir, name)?;
    let file = shown(book_root, &path);
    let text = std::fs::read_to_string(&path).map_err(|e| StageError::At {
        file: file.clone(),
        line: 1,
        message: format!("cannot read the stage file: {e}"),
    })?;
    let text = text.replace("\r\n", "\n");
    let at = |span: std::ops::Range<usize>, message: String| StageError::At {
        file: file.clone(),
        line: line_of(&text, span.start),
        message,
    };
    let raw: RawStage = toml::from_str(&text).map_err(|e| StageError::At {
        file: file.clone(),
        line: e.span().map_or(1, |s| line_of(&text, s.start)),
        message: toml_message(&e),
    })?;
    let folder = name.rsplit_once('/').map_or("", |(folder, _)| folder);
    let kernel = |spanned: &Spanned<String>| {
        kernel_ref(kernels_dir, folder, spanned.get_ref())
            .map(|path| KernelRef {
                path,
                line: line_of(&text, spanned.span().start),
            })
            .map_err(|message| at(spanned.span(), message.to_string()))
    };
    let text_of = |spanned: &Spanned<String>| Text {
        text: spanned.get_ref().trim_end().to_string(),
        line: text_line(&text, spanned.span().start),
    };
    let starter = kernel(&raw.starter)?;
    let solution = kernel(&raw.solution)?;
    if starter.path == solution.path {
        return Err(at(
            raw.solution.span(),
            "the solution is the starter itself: name the kernel that solves the stage".into(),
        ));
    }
    let pitfalls = raw
        .pitfall
        .iter()
        .map(|p| {
            Ok(Pitfall {
                title: p.title.clone(),
                text: text_of(&p.text),
                kernel: p.kernel.as_ref().map(&kernel).transpose()?,
            })
        })
        .collect::<Result<_, StageError>>()?;
    let counts = raw
        .count
        .iter()
        .map(|c| {
            let per = |word: &Spanned<String>| {
                PerLaunch::parse(word.get_ref()).ok_or_else(|| {
                    at(
                        word.span(),
                        suggest::message(
                            &format!("`{}` is not something a launch has", word.get_ref()),
                            word.get_ref(),
                            PerLaunch::WORDS,
                            "count threads, warps or blocks",
                        ),
                    )
                })
            };
            Ok(Count {
                what: c.what.get_ref().clone(),
                starter: per(&c.starter)?,
                solution: per(&c.solution)?,
                line: line_of(&text, c.what.span().start),
            })
        })
        .collect::<Result<_, StageError>>()?;
    let context = GateContext {
        book_root,
        kernels_dir,
        folder,
        name,
        text: &text,
        file: &file,
    };
    let mut gates = vec![Gate {
        kind: GateKind::Correct,
        line: solution.line,
    }];
    for raw_gate in &raw.gate {
        let gate = context.gate(raw_gate)?;
        if gate.kind != GateKind::Correct {
            gates.push(gate);
        }
    }
    let size_written = match raw.size.get_ref() {
        SizeField::Number(n) => Written::from(Size(*n)),
        // A plain number or power of two reads as a `Size` does, with its
        // message; anything else (`4096x4096`, `rows = 4096, cols = 64`)
        // as a size of several dimensions.
        SizeField::Text(t) if !several_dimensions(t) => Written::from(
            t.parse::<Size>()
                .map_err(|e| at(raw.size.span(), format!("the stage file is not valid: {e}")))?,
        ),
        SizeField::Text(t) => Written::parse(t).map_err(|e| {
            at(
                raw.size.span(),
                format!("the stage file is not valid: `{t}` is not a size: {e}"),
            )
        })?,
    };
    let size = match &size_written {
        Written::Positional(values, _) => Dims::n(values.iter().product()),
        Written::Named(groups) => Dims::n(
            groups
                .iter()
                .map(|(names, v, _)| v.pow(names.len() as u32))
                .product(),
        ),
    };
    Ok(Stage {
        name: name.to_string(),
        file,
        title: raw.title,
        size,
        size_written,
        size_line: line_of(&text, raw.size.span().start),
        goal: text_of(&raw.goal),
        learn: raw.learn.iter().map(text_of).collect(),
        lesson: text_of(&raw.lesson),
        hints: raw.hints.iter().map(text_of).collect(),
        starter,
        solution,
        pitfalls,
        counts,
        gates,
    })
}

/// The stage file of `name`, when `name` is a stage's name and its file exists.
fn checked_stage_path(kernels_dir: &Path, name: &str) -> Result<PathBuf, StageError> {
    let well_formed = !name.is_empty()
        && name.split('/').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
    let names = stage_names(kernels_dir);
    let path = stage_path(kernels_dir, name);
    if well_formed && path.is_file() {
        return Ok(path);
    }
    let what = format!(
        "no exercise stage `{name}`: stages are files kernels/{EXERCISES_DIR}/TRACK/STAGE.toml, named TRACK/STAGE"
    );
    Err(StageError::NotFound(
        match suggest::closest(name, names.iter().map(String::as_str)) {
            Some(meant) => format!("{what}; did you mean `{meant}`?"),
            None if names.is_empty() => format!("{what}, and this book has none"),
            None => format!("{what}; this book has {}", names.join(", ")),
        },
    ))
}

/// What a gate's table needs to resolve the stages and kernels it names.
struct GateContext<'a> {
    book_root: &'a Path,
    kernels_dir: &'a Path,
    folder: &'a str,
    name: &'a str,
    text: &'a str,
    file: &'a str,
}

impl GateContext<'_> {
    fn at(&self, span: std::ops::Range<usize>, message: String) -> StageError {
        StageError::At {
            file: self.file.to_string(),
            line: line_of(self.text, span.start),
            message,
        }
    }

    fn gate(&self, raw: &RawGate) -> Result<Gate, StageError> {
        let kind_word = raw.kind.get_ref().as_str();
        let line = line_of(self.text, raw.kind.span().start);
        // The keys each kind takes; any other key written is refused at its line.
        let (takes, usage): (&[&str], &str) = match kind_word {
            "correct" => (&[], "it takes no other key"),
            "profile" => (&["metric", "min", "max"], "metric, and min or max"),
            "profile_ratio" => (
                &["metric", "over", "min", "max"],
                "metric, over (`starter` or a stage), and min or max",
            ),
            "speedup" => (&["over", "min"], "over (`starter` or a stage) and min"),
            "time" => (&["max"], "max, in µs"),
            "pct_ceiling" => (&["min"], "min, in percent"),
            "peer" => (&["peer", "max"], "peer, and max (1 when absent)"),
            "sass" => (
                &["count", "min", "max"],
                "count (`instructions`, `division` or an opcode such as `SHFL`), and min or max",
            ),
            other => {
                return Err(self.at(
                    raw.kind.span(),
                    suggest::message(
                        &format!("unknown gate kind `{other}`"),
                        other,
                        GATE_KINDS,
                        &format!("use {}", GATE_KINDS.join(", ")),
                    ),
                ));
            }
        };
        for (key, span) in raw.written() {
            if !takes.contains(&key) {
                return Err(self.at(
                    span,
                    format!(
                        "a `{kind_word}` gate has no `{key}`: remove it ({kind_word} takes {usage})"
                    ),
                ));
            }
        }
        let need = |what: &str| {
            self.at(
                raw.kind.span(),
                format!("a `{kind_word}` gate needs {what} ({kind_word} takes {usage})"),
            )
        };
        let num = |v: &Option<Spanned<f64>>| v.as_ref().map(|s| *s.get_ref());
        let bounds = || match (num(&raw.min), num(&raw.max)) {
            (None, None) => Err(need("a bound, min or max")),
            (min, max) => Ok((min, max)),
        };
        let metric = || {
            let word = raw.metric.as_ref().ok_or_else(|| need("a metric"))?;
            metric_short(word.get_ref())
                .map(str::to_string)
                .ok_or_else(|| self.at(word.span(), unknown_metric(word.get_ref())))
        };
        let over = || {
            let word = raw.over.as_ref().ok_or_else(|| need("`over`"))?;
            self.baseline(word)
        };
        let kind = match kind_word {
            "correct" => GateKind::Correct,
            "profile" => {
                let (min, max) = bounds()?;
                GateKind::Profile {
                    metric: metric()?,
                    min,
                    max,
                }
            }
            "profile_ratio" => {
                let (min, max) = bounds()?;
                GateKind::ProfileRatio {
                    metric: metric()?,
                    over: over()?,
                    min,
                    max,
                }
            }
            "speedup" => GateKind::Speedup {
                over: over()?,
                min: num(&raw.min).ok_or_else(|| need("min, the smallest speed-up"))?,
            },
            "time" => GateKind::Time {
                max_us: num(&raw.max).ok_or_else(|| need("max, in µs"))?,
            },
            "pct_ceiling" => GateKind::PctCeiling {
                min: num(&raw.min).ok_or_else(|| need("min, in percent"))?,
            },
            "sass" => {
                let (min, max) = bounds()?;
                let word = raw.count.as_ref().ok_or_else(|| need("`count`"))?;
                let count = SassWhat::parse(word.get_ref()).ok_or_else(|| {
                    self.at(
                        word.span(),
                        format!(
                            "`count = \"{}\"` is not something a SASS gate counts: write `instructions`, `division`, `shared` (static shared memory bytes) or an opcode in capitals (`SHFL`, `LDG.E.128`)",
                            word.get_ref()
                        ),
                    )
                })?;
                GateKind::Sass { count, min, max }
            }
            _ => GateKind::Peer {
                peer: raw
                    .peer
                    .as_ref()
                    .ok_or_else(|| need("the peer's key, e.g. peer = \"cub\""))?
                    .get_ref()
                    .clone(),
                max: num(&raw.max).unwrap_or(1.0),
            },
        };
        Ok(Gate { kind, line })
    }

    /// `starter`, or another stage of the same track (`stage2`) or of any
    /// (`reduction/stage2`), whose solution is read from its file.
    fn baseline(&self, word: &Spanned<String>) -> Result<Baseline, StageError> {
        let written = word.get_ref();
        if written == "starter" {
            return Ok(Baseline::Starter);
        }
        let name = if written.contains('/') || self.folder.is_empty() {
            written.clone()
        } else {
            format!("{}/{written}", self.folder)
        };
        if name == self.name {
            return Err(self.at(
                word.span(),
                "a stage is not compared with itself: name the starter or an earlier stage".into(),
            ));
        }
        let path = checked_stage_path(self.kernels_dir, &name).map_err(|_| {
            let siblings: Vec<String> = stage_names(self.kernels_dir)
                .into_iter()
                .filter(|n| n != self.name)
                .collect();
            let short: Vec<&str> = siblings
                .iter()
                .map(|n| n.strip_prefix(&format!("{}/", self.folder)).unwrap_or(n))
                .collect();
            self.at(
                word.span(),
                suggest::message(
                    &format!("`over = \"{written}\"` names no stage"),
                    written,
                    short.iter().copied().chain(["starter"]),
                    &format!("use `starter` or one of {}", short.join(", ")),
                ),
            )
        })?;
        let other = shown(self.book_root, &path);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let solution: SolutionOnly = toml::from_str(&text).map_err(|e| {
            self.at(
                word.span(),
                format!(
                    "stage `{name}` cannot be read ({other}: {})",
                    toml_message(&e)
                ),
            )
        })?;
        let other_folder = name.rsplit_once('/').map_or("", |(f, _)| f);
        let path = kernel_ref(self.kernels_dir, other_folder, &solution.solution)
            .map_err(|message| self.at(word.span(), format!("stage `{name}`: {message}")))?;
        Ok(Baseline::Stage {
            name,
            solution: KernelRef {
                path,
                line: line_of(self.text, word.span().start),
            },
        })
    }
}

/// Why a kernel file named in a stage is not one: it climbs out of the
/// stage's folder, is no `.cu` file, or does not exist (with the likely
/// name); in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
struct KernelRefError(String);

impl From<String> for KernelRefError {
    fn from(message: String) -> Self {
        KernelRefError(message)
    }
}

/// A kernel file named in a stage, relative to the kernels folder, when it
/// is a `.cu` file in the stage's folder (or below it) that exists.
fn kernel_ref(kernels_dir: &Path, folder: &str, written: &str) -> Result<String, KernelRefError> {
    let climbs = Path::new(written)
        .components()
        .any(|c| !matches!(c, Component::Normal(_)));
    if climbs || !written.ends_with(".cu") {
        return Err(format!(
            "`{written}` is not a kernel file of this stage: name a .cu file in kernels/{EXERCISES_DIR}/{folder}/, relative to it"
        ).into());
    }
    let rel = if folder.is_empty() {
        format!("{EXERCISES_DIR}/{written}")
    } else {
        format!("{EXERCISES_DIR}/{folder}/{written}")
    };
    if kernels_dir.join(&rel).is_file() {
        return Ok(rel);
    }
    let dir = kernels_dir.join(EXERCISES_DIR).join(folder);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".cu"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    Err(suggest::message(
        &format!("no kernel file `{written}` in kernels/{EXERCISES_DIR}/{folder}/"),
        written,
        files.iter().map(String::as_str),
        "write the kernel there first (`cuda-runner new` starts one)",
    )
    .into())
}

/// The short names of the counters profiles hold, with the words a page
/// uses for them and their unit.
pub const METRIC_LABELS: &[(&str, &str, &str)] = &[
    ("sm", "SM throughput", "%"),
    ("dram", "DRAM throughput", "%"),
    ("memory", "memory throughput", "%"),
    ("occupancy", "achieved occupancy", "%"),
    ("instructions", "instructions executed", ""),
    ("bank_conflicts", "shared-memory bank conflicts", ""),
    ("dram_read", "DRAM bytes read", " B"),
    ("dram_write", "DRAM bytes written", " B"),
    ("registers", "registers per thread", ""),
    ("time", "kernel time under the profiler", " ns"),
    (
        "ld_sectors_per_request",
        "global-load sectors per request",
        "",
    ),
    (
        "st_sectors_per_request",
        "global-store sectors per request",
        "",
    ),
    ("ld_sectors", "global-load sectors", ""),
    ("st_sectors", "global-store sectors", ""),
];

/// The short name of a counter written as its short or full name.
fn metric_short(word: &str) -> Option<&'static str> {
    crate::profile::METRICS
        .iter()
        .find(|(short, full)| *short == word || *full == word)
        .map(|(short, _)| *short)
}

/// The words and unit of a counter's short name.
pub fn metric_label(short: &str) -> (&'static str, &'static str) {
    METRIC_LABELS
        .iter()
        .find(|(s, _, _)| *s == short)
        .map_or(("counter", ""), |(_, label, unit)| (label, unit))
}

fn unknown_metric(word: &str) -> String {
    let names: Vec<&str> = crate::profile::METRICS.iter().map(|(s, _)| *s).collect();
    suggest::message(
        &format!("`{word}` is not a counter the profiles hold"),
        word,
        names.iter().copied(),
        &format!("use {}", names.join(", ")),
    )
}

/// A TOML or serde error in one line, an unknown key with the key meant.
fn toml_message(e: &toml::de::Error) -> String {
    let raw = e.message().lines().next().unwrap_or_default().trim();
    crate::declaration::unknown_word_message(raw)
        .unwrap_or_else(|| format!("the stage file is not valid: {raw}"))
}

/// The 1-based line holding byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The line of a string value's first line of text: a multi-line string
/// whose opening quotes end their line starts on the next one.
fn text_line(text: &str, value_start: usize) -> usize {
    let rest = &text[value_start.min(text.len())..];
    let opens_alone = ["\"\"\"\n", "'''\n"].iter().any(|q| rest.starts_with(q));
    line_of(text, value_start) + usize::from(opens_alone)
}

/// `path` relative to the book's root, with forward slashes.
fn shown(book_root: &Path, path: &Path) -> String {
    path.strip_prefix(book_root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether a stage's size text is one of several dimensions: values
/// joined by `x` (`4096x4096`, `2^12x2^12`) or `×`, or dimensions named
/// (`rows = 4096, cols = 4096`); `2^x` is a mistaken size of one.
fn several_dimensions(text: &str) -> bool {
    text.contains(['×', '=', ','])
        || text
            .as_bytes()
            .windows(3)
            .any(|w| w[0].is_ascii_digit() && w[1] == b'x' && w[2].is_ascii_digit())
}

/// A stage's `size` as written: a number, or text (`"2^22"`, `"4096x4096"`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum SizeField {
    Number(u64),
    Text(String),
}

/// A stage file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStage {
    title: String,
    size: Spanned<SizeField>,
    starter: Spanned<String>,
    solution: Spanned<String>,
    goal: Spanned<String>,
    #[serde(default)]
    learn: Vec<Spanned<String>>,
    lesson: Spanned<String>,
    #[serde(default)]
    hints: Vec<Spanned<String>>,
    #[serde(default)]
    pitfall: Vec<RawPitfall>,
    #[serde(default)]
    count: Vec<RawCount>,
    #[serde(default)]
    gate: Vec<RawGate>,
}

/// Only the solution of another stage, for a gate compared with it.
#[derive(Debug, Deserialize)]
struct SolutionOnly {
    solution: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPitfall {
    title: String,
    text: Spanned<String>,
    #[serde(default)]
    kernel: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCount {
    what: Spanned<String>,
    starter: Spanned<String>,
    solution: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGate {
    kind: Spanned<String>,
    #[serde(default)]
    metric: Option<Spanned<String>>,
    #[serde(default)]
    over: Option<Spanned<String>>,
    #[serde(default)]
    peer: Option<Spanned<String>>,
    #[serde(default)]
    count: Option<Spanned<String>>,
    #[serde(default)]
    min: Option<Spanned<f64>>,
    #[serde(default)]
    max: Option<Spanned<f64>>,
}

impl RawGate {
    /// The optional keys written, with where.
    fn written(&self) -> Vec<(&'static str, std::ops::Range<usize>)> {
        let text = |name, v: &Option<Spanned<String>>| v.as_ref().map(|s| (name, s.span()));
        let num = |name, v: &Option<Spanned<f64>>| v.as_ref().map(|s| (name, s.span()));
        [
            text("metric", &self.metric),
            text("over", &self.over),
            text("peer", &self.peer),
            text("count", &self.count),
            num("min", &self.min),
            num("max", &self.max),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

#[cfg(test)]
mod tests;
