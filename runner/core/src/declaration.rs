//! The declaration of a runnable example: which problem it solves, how it
//! is launched, at which sizes, and what it is expected to do. Authors write
//! it as TOML in a header comment at the top of the kernel (see
//! AUTHORING.md); this module holds its types and its validation.

use crate::dims::Dims;
use crate::header_lines::HeaderField;
use crate::size::Size;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An expression for a launch dimension or a byte count: a whole number or
/// text such as `"ceil_div(n, 256)"` or `"min(sms * 4, ceil_div(n, 1024))"`.
/// Variables: `n` (the size), `sms` (the device's multiprocessor count),
/// `grid0`, `grid1`, ... (grids of earlier launches) and `block0`, ...;
/// functions `min`, `max`, `ceil_div` and `pow2_floor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Expr {
    /// A literal.
    Int(u64),
    /// An expression evaluated per size and device.
    Text(String),
}

impl Expr {
    /// The expression as text, for error messages and the results panel.
    pub fn as_text(&self) -> String {
        match self {
            Expr::Int(n) => n.to_string(),
            Expr::Text(t) => t.clone(),
        }
    }
}

/// One kernel launch of the plan. All launches of a plan are timed as one
/// unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// The `extern "C" __global__` function to launch.
    pub kernel: String,
    /// Blocks in the grid (one-dimensional).
    pub grid: Expr,
    /// Threads per block (one-dimensional).
    pub block: Expr,
    /// Dynamic shared memory in bytes.
    #[serde(default = "zero_expr")]
    pub shared: Expr,
    /// Kernel arguments in order: buffer names of the problem (`input`,
    /// `out`), scratch buffer names, or scalar variables (`n`, `sms`,
    /// `grid0`...) passed as 32-bit unsigned integers.
    pub args: Vec<String>,
    /// A setup launch: run before the timed launches of every run, outside
    /// the timed region (before the L2 flush of a cold sample). Setup
    /// launches come first in the header. Left out of the serialised form
    /// when false, so that other examples' keys stay as they were.
    #[serde(default, skip_serializing_if = "is_false")]
    pub setup: bool,
}

fn zero_expr() -> Expr {
    Expr::Int(0)
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A scratch buffer: its length in elements, as `name = "expr"` (f32,
/// [`ScratchInit::Kept`]: today's form, serialised as it always was) or as
/// a table `name = { len = "grid0", elem = "u32", init = "zeroed" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scratch {
    /// `name = "expr"`: f32 elements, NaN before the correctness run.
    Len(Expr),
    /// `name = { len = ..., elem = ..., init = ... }`.
    Table(ScratchTable),
}

/// The table form of a scratch buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScratchTable {
    /// Elements, as an expression.
    pub len: Expr,
    /// The element type (`u8`, `i32`, `u32`, `f16`, `bf16`, `f32`, `f64`);
    /// `f32` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elem: Option<String>,
    /// How it starts each run; [`ScratchInit::Kept`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<ScratchInit>,
}

/// How a scratch buffer starts each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScratchInit {
    /// Set to zero before every run, outside the timed region (flags and
    /// counters of a single-pass scan).
    Zeroed,
    /// Filled with the poison of its type (NaN for floats) before every
    /// run, outside the timed region.
    Poisoned,
    /// Filled with poison before the correctness run only; timed runs
    /// find what the previous run left (the form `name = "expr"` has).
    Kept,
}

impl Scratch {
    /// Its length expression.
    pub fn len(&self) -> &Expr {
        match self {
            Scratch::Len(e) => e,
            Scratch::Table(t) => &t.len,
        }
    }

    /// Its element type (`f32` where not given, or where the name is
    /// unknown, which validation refuses).
    pub fn elem(&self) -> crate::problem::Elem {
        match self {
            Scratch::Table(ScratchTable { elem: Some(e), .. }) => {
                crate::problem::Elem::parse(e).unwrap_or(crate::problem::Elem::F32)
            }
            _ => crate::problem::Elem::F32,
        }
    }

    /// How it starts each run.
    pub fn init(&self) -> ScratchInit {
        match self {
            Scratch::Table(ScratchTable { init: Some(i), .. }) => *i,
            _ => ScratchInit::Kept,
        }
    }
}

/// The outcome an example is meant to have. Examples that demonstrate a bug
/// (a race, float saturation) declare it so that the strict build accepts
/// them while the page still shows the failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Expectation {
    /// Correct at every size (the default).
    #[default]
    Pass,
    /// Runs but the check fails at one size or more.
    Wrong,
    /// Does not compile.
    CompileError,
    /// The launch is refused.
    LaunchError,
    /// The kernel faults (e.g. an out-of-bounds access).
    Fault,
    /// The kernel never finishes within the time limit.
    Timeout,
}

/// How long NVRTC may take over one example (all values of a sweep
/// together), in seconds, when its header sets no `compile_timeout_s`:
/// the book's kernels compile in well under a second each, so only a
/// kernel that makes NVRTC work for minutes (a deep template recursion, a
/// huge unrolled loop) meets it.
pub const DEFAULT_COMPILE_TIMEOUT_S: u64 = 30;

/// The parsed header of an example. Its sizes read against the problem's
/// dimensions ([`Declaration::sizes`]) are not serialised (the key holds
/// the sizes as written); every deserialisation reads them again, so a
/// declaration that travels as JSON (to a measuring or compiling child)
/// arrives with the sizes it left with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, remote = "Self")]
pub struct Declaration {
    /// The problem solved, by name (`sum_f32`).
    pub problem: String,
    /// The element type of the problem's data (`f32`, `bf16`), one of
    /// those the problem takes; its first when absent. Left out of the
    /// serialised form when absent, so that keys made before it existed
    /// stay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    /// Rows (M) of a row-wise problem, as an expression of `n`, the
    /// declared size, which is the row length (N): `rows = "67108864 / n"`
    /// keeps M x N at 2^26. Required by row-wise problems, refused by others.
    /// Left out of the serialised form when absent, as `dtype` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Expr>,
    /// Sizes to measure, as written (`"2^20"`, `"8192x8192"`,
    /// `"M = N = K = 4096"`): one value without a unit serialises as the
    /// number, as sizes always have, so keys made before sizes had
    /// dimensions stay as they were.
    #[serde(rename = "sizes")]
    pub written_sizes: Vec<crate::dims::Written>,
    /// The sizes to measure, read against the problem's dimensions
    /// ([`crate::problem::Problem::dims`]); filled by [`Declaration::parse`].
    #[serde(skip)]
    pub sizes: Vec<Dims>,
    /// The launches, in order (none for a `transfer`, whose plan is its
    /// `[transfer]` table).
    #[serde(rename = "launch", default)]
    pub launches: Vec<LaunchSpec>,
    /// Scratch buffers by name: their length in elements, element type and
    /// how they start each run ([`Scratch`]).
    #[serde(default)]
    pub scratch: BTreeMap<String, Scratch>,
    /// Bytes the algorithm must move at size `n`, if not the problem's own
    /// count.
    #[serde(default)]
    pub bytes: Option<Expr>,
    /// Extra NVRTC options.
    #[serde(default)]
    pub compile: Vec<String>,
    /// What the example is meant to do.
    #[serde(default)]
    pub expect: Expectation,
    /// Time limit for the whole example in seconds.
    #[serde(default)]
    pub timeout_s: Option<u64>,
    /// Time limit for compiling the example with NVRTC, in seconds (all
    /// values of a sweep together), when it needs more than
    /// [`DEFAULT_COMPILE_TIMEOUT_S`]. Left out of the
    /// serialised form when absent, so that other examples' keys stay as
    /// they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_timeout_s: Option<u64>,
    /// The example's measuring budget, seconds over all its processes
    /// (warm-ups, samples and hot figures; [`crate::method::DEFAULT_BUDGET_S`]
    /// when absent): a size whose samples are slow gets fewer than the
    /// minimum count when it runs out. Left out of the serialised form when
    /// absent, so that other examples' keys stay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<u64>,
    /// The `[elementwise]` table of an `elementwise` problem: its inputs,
    /// scalars, output and float64 reference. Left out of the serialised
    /// form when absent, so that other examples' keys stay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elementwise: Option<crate::problem::ElementwiseSpec>,
    /// The `[transfer]` table of a `transfer`: direction and host memory
    /// of a host-device copy, which has no kernel. Left out of the
    /// serialised form when absent, as `elementwise` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer: Option<crate::problem::TransferSpec>,
    /// The `[sweep]` table: one compile-time parameter and its values
    /// (`STRIDE = [1, 2, 4]`), each compiled, planned and measured as its
    /// own run ([`crate::sweep`]). Left out of the serialised form when
    /// absent, as `transfer` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<crate::sweep::Sweep>,
}

impl Serialize for Declaration {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The derived form (`remote = "Self"`), unchanged: keys hash it.
        Declaration::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Declaration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut decl = Declaration::deserialize(d)?;
        // Sizes that do not read against the problem (an unknown problem,
        // a size of the wrong shape) stay unread: validation reports them.
        let dims = decl.dims();
        if let Ok(sizes) = decl.written_sizes.iter().map(|w| w.resolve(dims)).collect() {
            decl.sizes = sizes;
        }
        Ok(decl)
    }
}

/// Why a written size is not one of an example's sizes
/// ([`Declaration::declared_size`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// The text is no size of the problem's dimensions.
    #[error(transparent)]
    Unreadable(#[from] crate::dims::DimsError),
    /// A size, but not one the example declares.
    #[error(
        "size {size} is not one of its sizes{}: its sizes are {}",
        crate::suggest::did_you_mean(&size.to_string(), declared.iter().map(String::as_str)),
        declared.join("; ")
    )]
    Undeclared {
        /// The size as read.
        size: Dims,
        /// The declared sizes, in their canonical text.
        declared: Vec<String>,
    },
}

/// What is wrong with a declaration, in words that say how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum DeclarationError {
    /// The TOML itself does not parse, has an unknown key or a value of the
    /// wrong kind.
    #[error("{message}")]
    Toml {
        /// What is wrong, in one line: an unknown key or value with the
        /// one most likely meant, or the TOML parser's own words.
        message: String,
        /// 1-based line of the TOML text where it is, when known.
        line: Option<usize>,
    },
    /// A semantic problem.
    #[error("{message}")]
    Invalid {
        /// What is wrong and how to fix it.
        message: String,
        /// 1-based line of the TOML text of the key it is about, when the
        /// key (or its table) is written.
        line: Option<usize>,
    },
}

impl DeclarationError {
    /// The 1-based line of the TOML text the error is at, when known
    /// (errors about the header as a whole have none).
    pub fn line(&self) -> Option<usize> {
        match self {
            DeclarationError::Toml { line, .. } => *line,
            DeclarationError::Invalid { line, .. } => *line,
        }
    }

    /// An error of the TOML parser or of serde: at the line its span starts
    /// on, with the first line of its message; an unknown key or `expect`
    /// value names the word and the one most likely meant.
    fn from_toml(toml_text: &str, e: &toml::de::Error) -> Self {
        let raw = e.message().lines().next().unwrap_or_default().trim();
        let message = unknown_word_message(raw).unwrap_or_else(|| {
            let words = if raw.contains("untagged enum Expr") {
                "a launch dimension is a whole number or an expression in quotes, e.g. grid = \"ceil_div(n, 256)\""
            } else {
                raw
            };
            format!("the example header is not valid: {words}")
        });
        // A missing key is the header's fault as a whole, not one line's.
        let line = e
            .span()
            .filter(|_| !raw.starts_with("missing field"))
            .map(|span| {
                // An error at the very end (an array never closed) is at
                // the last line, not at the closing marker's.
                let start = span.start.min(toml_text.trim_end().len());
                toml_text.as_bytes()[..start]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1
            });
        DeclarationError::Toml { message, line }
    }
}

/// serde's "unknown field `sise`, expected one of `problem`, `sizes`, ..."
/// and "unknown variant `wrongg`, expected one of `pass`, ..." in the
/// book's words, with the name most likely meant.
pub(crate) fn unknown_word_message(raw: &str) -> Option<String> {
    let kind = if raw.starts_with("unknown field `") {
        "key"
    } else if raw.starts_with("unknown variant `") {
        "value"
    } else {
        return None;
    };
    // Odd pieces between backticks: the word, then the names expected.
    let quoted: Vec<&str> = raw.split('`').skip(1).step_by(2).collect();
    let (word, expected) = quoted.split_first()?;
    let what = match kind {
        "value" if expected.contains(&"compile-error") => {
            format!("unknown `expect` value `{word}`")
        }
        _ => format!("unknown {kind} `{word}`"),
    };
    Some(crate::suggest::message(
        &what,
        word,
        expected.iter().copied(),
        &format!("use {}", one_of(expected)),
    ))
}

/// `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names {
        [] => "nothing here".into(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl Declaration {
    /// The element type the example runs with: its `dtype`, else its
    /// problem's first (f32 for an unknown problem, which validation
    /// refuses).
    pub fn elem(&self) -> crate::problem::Elem {
        let default = crate::problem::lookup(&self.problem)
            .map_or(crate::problem::Elem::F32, |p| p.dtypes()[0]);
        self.dtype
            .as_deref()
            .and_then(crate::problem::Elem::parse)
            .unwrap_or(default)
    }

    /// The problem it solves, or `None` for an unknown name (or an
    /// `elementwise` problem without its table, which validation refuses):
    /// a registered problem by name, or one its own `[elementwise]` or
    /// `[transfer]` table declares.
    pub fn resolve_problem(&self) -> Option<crate::problem::ProblemRef> {
        use crate::problem::{self, Elementwise, ProblemRef, Transfer};
        if self.problem == problem::ELEMENTWISE {
            return self
                .elementwise
                .clone()
                .map(|spec| ProblemRef::Declared(Box::new(Elementwise::new(spec))));
        }
        if self.problem == problem::TRANSFER {
            return self
                .transfer
                .map(|spec| ProblemRef::Declared(Box::new(Transfer::new(spec))));
        }
        problem::lookup(&self.problem).map(ProblemRef::Registered)
    }

    /// The dimensions of its problem's sizes ([`crate::dims::N`] for an
    /// unknown problem, which validation refuses).
    pub fn dims(&self) -> &'static [crate::dims::Dim] {
        self.resolve_problem().map_or(crate::dims::N, |p| p.dims())
    }

    /// Reads `text` (any written form: `"2^20"`, `"8192x8192"`,
    /// `"M=N=K=4096"`) as a size of its problem, declared or not.
    pub fn read_size(&self, text: &str) -> Result<Dims, crate::dims::DimsError> {
        Dims::parse(text, self.dims())
    }

    /// Reads `text` as one of its declared sizes; the message of a size it
    /// does not declare lists those it does, in their canonical text.
    pub fn declared_size(&self, text: &str) -> Result<Dims, SizeError> {
        let size = self.read_size(text)?;
        if self.sizes.contains(&size) {
            return Ok(size);
        }
        Err(SizeError::Undeclared {
            size,
            declared: self.sizes.iter().map(Dims::to_string).collect(),
        })
    }

    /// The values of its swept parameter in declared order, each as
    /// `Some`; one `None` when it sweeps nothing: one entry per
    /// compilation and per row of a size.
    pub fn sweep_values(&self) -> Vec<Option<crate::sweep::SweepValue>> {
        match &self.sweep {
            Some(sweep) => sweep.values().into_iter().map(Some).collect(),
            None => vec![None],
        }
    }

    /// The one value this declaration is compiled and planned with: its
    /// swept parameter's, when the `[sweep]` table holds exactly one value
    /// (as [`Declaration::at_value`] leaves it); `None` otherwise.
    pub fn chosen(&self) -> Option<crate::sweep::SweepValue> {
        match self.sweep.as_ref().map(crate::sweep::Sweep::values) {
            Some(values) if values.len() == 1 => values.into_iter().next(),
            _ => None,
        }
    }

    /// The declaration of one value of its sweep: the `[sweep]` table
    /// holding `value` alone, so that its compile options define it and
    /// its plan sees it ([`Declaration::chosen`]).
    pub fn at_value(&self, value: &crate::sweep::SweepValue) -> Declaration {
        Declaration {
            sweep: Some(crate::sweep::Sweep::only(value)),
            ..self.clone()
        }
    }

    /// Parses and validates a TOML header.
    pub fn parse(toml_text: &str) -> Result<Self, DeclarationError> {
        let mut decl: Declaration =
            toml::from_str(toml_text).map_err(|e| DeclarationError::from_toml(toml_text, &e))?;
        decl.validate()
            .map_err(|(message, field)| DeclarationError::Invalid {
                message,
                line: field
                    .and_then(|f| crate::header_lines::field_line(toml_text.lines(), f))
                    .map(|i| i + 1),
            })?;
        Ok(decl)
    }

    /// The first semantic error, with the header field it is about.
    fn validate(&mut self) -> Result<(), (String, Option<HeaderField<'_>>)> {
        let at = |key: &'static str| Some(HeaderField::Top(key));
        match (
            &self.elementwise,
            self.problem == crate::problem::ELEMENTWISE,
        ) {
            (None, true) => {
                return Err((
                    "`elementwise` needs an [elementwise] table with inputs, output and reference, e.g. inputs = [\"x\", \"y\"], scalars = { a = 2.5 }, output = \"y\", reference = \"a * x + y\" (AUTHORING.md §3)".into(),
                    at("problem"),
                ));
            }
            (Some(_), false) => {
                return Err((
                    format!(
                        "an [elementwise] table belongs to problem = \"elementwise\", not `{}`: remove it",
                        self.problem
                    ),
                    Some(HeaderField::Elementwise("inputs")),
                ));
            }
            (Some(spec), true) => {
                spec.validate()
                    .map_err(|(message, key)| (message, Some(HeaderField::Elementwise(key))))?;
            }
            (None, false) => {}
        }
        self.validate_transfer()?;
        if self.compile_timeout_s == Some(0) {
            return Err((
                format!(
                    "`compile_timeout_s = 0` leaves NVRTC no time: give the seconds compiling may take (at least 1), or remove the key for the default of {} s",
                    DEFAULT_COMPILE_TIMEOUT_S
                ),
                at("compile_timeout_s"),
            ));
        }
        if self.budget_s == Some(0) {
            return Err((
                "budget_s = 0: the measuring budget is a positive whole number of seconds, e.g. budget_s = 60".into(),
                at("budget_s"),
            ));
        }
        let Some(problem) = self.resolve_problem() else {
            let names = crate::problem::names();
            return Err((
                crate::suggest::message(
                    &format!("unknown problem `{}`", self.problem),
                    &self.problem,
                    names.iter().copied(),
                    &format!("use {}", one_of(&names)),
                ),
                at("problem"),
            ));
        };
        if let Some(dtype) = &self.dtype {
            let names: Vec<&str> = problem.dtypes().iter().map(|e| e.name()).collect();
            if !names.contains(&dtype.as_str()) {
                return Err((
                    crate::suggest::message(
                        &format!("`{}` takes no dtype `{dtype}`", self.problem),
                        dtype,
                        names.iter().copied(),
                        &format!("use dtype = {}", one_of(&names)),
                    ),
                    at("dtype"),
                ));
            }
        }
        match (&self.rows, problem.rowwise()) {
            (None, true) => {
                return Err((
                    format!(
                        "`{}` is row-wise: each size is the row length n, and `rows` must say how many rows, e.g. rows = \"67108864 / n\" (2^26 elements at every size) or rows = 4096",
                        self.problem
                    ),
                    at("problem"),
                ));
            }
            (Some(_), false) => {
                return Err((
                    format!(
                        "`{}` is one-dimensional (n elements): remove `rows`",
                        self.problem
                    ),
                    at("rows"),
                ));
            }
            _ => {}
        }
        let dims = problem.dims();
        self.sizes = self
            .written_sizes
            .iter()
            .map(|w| w.resolve(dims))
            .collect::<Result<_, _>>()
            .map_err(|e| (format!("`{}`: {e}", self.problem), at("sizes")))?;
        let (max, why) = problem.max_size();
        if let Some(big) = self.sizes.iter().find(|s| s.n_value() > max) {
            let what = if big.is_flat() {
                "elements"
            } else {
                "the product of its values"
            };
            return Err((
                format!(
                    "size {big} ({} {what}) is beyond what `{}` takes: at most {} ({max}), because {why}; remove it from `sizes`",
                    big.n_value(),
                    self.problem,
                    Size(max)
                ),
                at("sizes"),
            ));
        }
        if let Some(big) = self
            .sizes
            .iter()
            .find(|s| s.values().iter().any(|&v| v > u64::from(u32::MAX)))
        {
            return Err((
                format!(
                    "size {big} has a value past 2^32 - 1, which kernels cannot take as an unsigned int; remove it from `sizes`"
                ),
                at("sizes"),
            ));
        }
        if let Some(bad) = self.compile.iter().find(|o| !compile_option_allowed(o)) {
            return Err((
                format!(
                    "compile option `{bad}` is not one of the accepted options (options that name files or folders, such as -I or --pre-include, could read outside the book, and the runner sets the rest itself); accepted: {}",
                    ALLOWED_OPTION_PREFIXES.join(" ")
                ),
                at("compile"),
            ));
        }
        if self.sizes.is_empty() {
            return Err((
                "`sizes` is empty: list at least one size, e.g. sizes = [\"2^20\"]".into(),
                at("sizes"),
            ));
        }
        if self.sizes.iter().any(|s| s.values().contains(&0)) {
            return Err((
                "a size of 0 has nothing to measure: remove it from `sizes`".into(),
                at("sizes"),
            ));
        }
        if self.launches.is_empty() && self.transfer.is_none() {
            return Err((
                "no launch: add a [[launch]] table with kernel, grid, block and args".into(),
                None,
            ));
        }
        if let Some(sweep) = &self.sweep {
            let mut taken: Vec<String> = problem
                .argument_names()
                .iter()
                .map(|s| s.to_string())
                .chain(problem.scalars().iter().map(|(k, _)| k.to_string()))
                .chain(problem.dims().iter().map(|d| d.variable()))
                .collect();
            taken.extend(self.scratch.keys().cloned());
            crate::sweep::validate(sweep, &taken, &self.compile)?;
        }
        for (name, scratch) in &self.scratch {
            if let Scratch::Table(ScratchTable { elem: Some(e), .. }) = scratch
                && crate::problem::Elem::parse(e).is_none()
            {
                let names: Vec<&str> = crate::problem::Elem::ALL.iter().map(|e| e.name()).collect();
                return Err((
                    crate::suggest::message(
                        &format!("scratch `{name}` has no element type `{e}`"),
                        e,
                        names.iter().copied(),
                        &format!("use elem = {}", one_of(&names)),
                    ),
                    Some(HeaderField::Scratch(name)),
                ));
            }
        }
        if let Some(first_timed) = self.launches.iter().position(|l| !l.setup) {
            if let Some(late) = self.launches[first_timed..].iter().position(|l| l.setup) {
                let i = first_timed + late;
                return Err((
                    format!(
                        "launch {i} (`{}`) is a setup launch after a timed one: setup launches run before the timed launches of every run, so put them first in the header",
                        self.launches[i].kernel
                    ),
                    Some(HeaderField::Launch(i, "setup")),
                ));
            }
        } else if !self.launches.is_empty() {
            return Err((
                "every launch is a setup launch: at least one must be timed (remove `setup = true` from it)".into(),
                None,
            ));
        }
        for (i, l) in self.launches.iter().enumerate() {
            if l.kernel.trim().is_empty() {
                return Err((
                    format!("launch {i} has an empty `kernel` name"),
                    Some(HeaderField::Launch(i, "kernel")),
                ));
            }
            if l.args.is_empty() {
                return Err((
                    format!(
                        "launch {i} (`{}`) has no `args`: list the buffers and scalars the kernel takes, in order",
                        l.kernel
                    ),
                    Some(HeaderField::Launch(i, "args")),
                ));
            }
        }
        Ok(())
    }
}

impl Declaration {
    /// A `transfer` has a `[transfer]` table and no `[[launch]]` (no
    /// kernel of ours runs), and no other problem has one.
    fn validate_transfer(&self) -> Result<(), (String, Option<HeaderField<'static>>)> {
        let is_transfer = self.problem == crate::problem::TRANSFER;
        match (&self.transfer, is_transfer) {
            (None, true) => Err((
                "`transfer` needs a [transfer] table naming the copy, e.g. direction = \"h2d\" (or \"d2h\") and host = \"pinned\" (or \"pageable\" or \"mapped\") (AUTHORING.md §3)".into(),
                Some(HeaderField::Top("problem")),
            )),
            (Some(_), false) => Err((
                format!(
                    "a [transfer] table belongs to problem = \"transfer\", not `{}`: remove it",
                    self.problem
                ),
                Some(HeaderField::Transfer("direction")),
            )),
            (Some(_), true) if !self.launches.is_empty() => Err((
                "a `transfer` runs no kernel: the [transfer] table is its whole plan, so remove the [[launch]] tables".into(),
                Some(HeaderField::Launch(0, "kernel")),
            )),
            (Some(_), true) if !self.scratch.is_empty() || self.bytes.is_some() => Err((
                "a `transfer` moves exactly its size in bytes and has no kernel to give scratch to: remove `scratch` and `bytes`".into(),
                Some(HeaderField::Top(if self.bytes.is_some() { "bytes" } else { "scratch" })),
            )),
            (Some(spec), true)
                if spec.host == crate::problem::transfer::HostMemory::Mapped
                    && self.sizes.iter().any(|s| s.n_value() % 16 != 0) =>
            {
                Err((
                    "a `transfer` from or to mapped host memory is copied by a kernel one float4 (16 bytes) a thread: make every size a multiple of 16 bytes".into(),
                    Some(HeaderField::Top("sizes")),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The NVRTC options a header's `compile` may use: code generation and
/// macros, never an option that names a file or folder (an include path
/// would let `#include <name>` read outside `kernels/`).
pub const ALLOWED_OPTION_PREFIXES: &[&str] = &[
    "-D",
    "-U",
    "-std=",
    "--std=",
    "-use_fast_math",
    "--use_fast_math",
    "-ftz=",
    "--ftz=",
    "-prec-div=",
    "--prec-div=",
    "-prec-sqrt=",
    "--prec-sqrt=",
    "-fmad=",
    "--fmad=",
    "-maxrregcount=",
    "--maxrregcount=",
    "-extra-device-vectorization",
    "--extra-device-vectorization",
    "-restrict",
    "--restrict",
    "-G",
    "--device-debug",
    "-w",
    "--disable-warnings",
    "-Werror=",
    "--Werror=",
];

/// Whether `option` is one of [`ALLOWED_OPTION_PREFIXES`] (flags exactly,
/// `=` forms and `-D`/`-U` by prefix).
fn compile_option_allowed(option: &str) -> bool {
    ALLOWED_OPTION_PREFIXES.iter().any(|p| {
        if p.ends_with('=') || *p == "-D" || *p == "-U" {
            option.starts_with(p) && option.len() > p.len()
        } else {
            option == *p
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_PASS: &str = r#"
problem = "sum_f32"
sizes = ["2^20", 1000003]
[scratch]
partials = "grid0"
[[launch]]
kernel = "partial_sums"
grid = "sms * 4"
block = 512
args = ["input", "partials", "n"]
[[launch]]
kernel = "final_sum"
grid = 1
block = 1024
shared = "4 * 32"
args = ["partials", "out", "grid0"]
"#;

    // A declaration sent to a child process as JSON arrives with the
    // sizes it left with, read against its problem's dimensions (they are
    // not serialised, so the key's text is unchanged): without them a
    // measuring child would time nothing and call the example a pass.
    #[test]
    fn sizes_survive_a_json_round_trip() {
        let transpose = "problem = \"transpose\"\nsizes = [\"8192x4096\", \"rows = 33, cols = 31\"]\n[[launch]]\nkernel = \"t\"\ngrid = 1\nblock = 32\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\n";
        for text in [TWO_PASS, transpose] {
            let parsed = Declaration::parse(text).unwrap();
            assert!(!parsed.sizes.is_empty());
            let json = serde_json::to_string(&parsed).unwrap();
            assert!(!json.contains("dims"), "{json}");
            let back: Declaration = serde_json::from_str(&json).unwrap();
            assert_eq!(back.sizes, parsed.sizes);
            assert_eq!(back, parsed);
        }
    }

    // A transfer's plan is its [transfer] table: it parses without a
    // launch, and each way of getting it wrong is refused at the line of
    // the key it is about; other examples' serialised form is unchanged.
    #[test]
    fn transfer_tables() {
        let ok = "problem = \"transfer\"\nsizes = [\"2^26\"]\n[transfer]\ndirection = \"h2d\"\nhost = \"pinned\"\n";
        let d = Declaration::parse(ok).unwrap();
        assert!(d.launches.is_empty());
        assert_eq!(
            d.transfer.unwrap().direction,
            crate::problem::Direction::H2d
        );
        let missing =
            Declaration::parse("problem = \"transfer\"\nsizes = [\"2^26\"]\n").unwrap_err();
        assert!(
            missing.to_string().contains("needs a [transfer] table"),
            "{missing}"
        );
        assert_eq!(missing.line(), Some(1));
        let stray = TWO_PASS.replace(
            "[scratch]",
            "[transfer]\ndirection = \"h2d\"\nhost = \"pinned\"\n[scratch]",
        );
        let e = Declaration::parse(&stray).unwrap_err();
        assert!(
            e.to_string().contains("belongs to problem = \"transfer\""),
            "{e}"
        );
        assert_eq!(e.line(), Some(5));
        let launched =
            format!("{ok}[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 1\nargs = [\"n\"]\n");
        let e = Declaration::parse(&launched).unwrap_err();
        assert!(e.to_string().contains("runs no kernel"), "{e}");
        assert_eq!(e.line(), Some(7));
        let typo = ok.replace("host", "hots");
        let e = Declaration::parse(&typo).unwrap_err();
        assert!(e.to_string().contains("did you mean `host`"), "{e}");
        let json = serde_json::to_string(&Declaration::parse(TWO_PASS).unwrap()).unwrap();
        assert!(!json.contains("transfer"), "{json}");
        // Mapped memory is copied by a kernel, a float4 a thread: whole
        // float4s only, refused at the line of `sizes`.
        let mapped = ok.replace("pinned", "mapped");
        assert!(Declaration::parse(&mapped).is_ok());
        let ragged = mapped.replace("\"2^26\"", "\"4KiB\", 1000");
        let e = Declaration::parse(&ragged).unwrap_err();
        assert!(e.to_string().contains("multiple of 16 bytes"), "{e}");
        assert_eq!(e.line(), Some(2));
    }

    // A two-launch plan with a scratch buffer reads back as written.
    #[test]
    fn two_pass_header_parses() {
        let d = Declaration::parse(TWO_PASS).unwrap();
        assert_eq!(d.launches.len(), 2);
        assert_eq!(d.sizes, vec![Dims::n(1 << 20), Dims::n(1000003)]);
        assert_eq!(
            d.scratch["partials"],
            Scratch::Len(Expr::Text("grid0".into()))
        );
        assert_eq!(d.launches[0].shared, Expr::Int(0));
        assert_eq!(d.expect, Expectation::Pass);
    }

    // A misspelt key, problem or `expect` value is an error naming the
    // word and the one most likely meant, at the key's line of the TOML;
    // a word near nothing lists what is accepted.
    // `budget_s` is read from the header and refused at 0; a header
    // without it serialises as before (no `budget_s` key), so every other
    // example's key is unchanged.
    #[test]
    fn the_budget_is_a_header_key_left_out_when_absent() {
        let plain = Declaration::parse(TWO_PASS).unwrap();
        assert_eq!(plain.budget_s, None);
        assert!(!serde_json::to_string(&plain).unwrap().contains("budget_s"));
        let with =
            Declaration::parse(&TWO_PASS.replace("[scratch]", "budget_s = 60\n[scratch]")).unwrap();
        assert_eq!(with.budget_s, Some(60));
        assert!(
            serde_json::to_string(&with)
                .unwrap()
                .contains("\"budget_s\":60")
        );
        let zero = Declaration::parse(&TWO_PASS.replace("[scratch]", "budget_s = 0\n[scratch]"))
            .unwrap_err()
            .to_string();
        assert!(
            zero.contains("budget_s = 0: the measuring budget is a positive"),
            "{zero}"
        );
    }

    #[test]
    fn unknown_words_name_the_word_meant() {
        let expect = TWO_PASS.replace("[scratch]", "expect = \"wrongg\"\n[scratch]");
        let cases = [
            (
                TWO_PASS.replace("sizes", "sise"),
                Some(3),
                "unknown key `sise`; did you mean `sizes`?",
            ),
            (
                TWO_PASS.replace("sizes", "sizez"),
                Some(3),
                "unknown key `sizez`; did you mean `sizes`?",
            ),
            (
                TWO_PASS.replace("sizes", "colour"),
                Some(3),
                "unknown key `colour`: use problem, dtype, rows, sizes, launch, scratch, bytes, compile, expect, timeout_s, compile_timeout_s, budget_s, elementwise, transfer or sweep",
            ),
            (
                TWO_PASS.replace("kernel = \"final_sum\"", "kernal = \"final_sum\""),
                Some(12),
                "unknown key `kernal`; did you mean `kernel`?",
            ),
            (
                TWO_PASS.replace("shared", "shard"),
                Some(15),
                "unknown key `shard`; did you mean `shared`?",
            ),
            (
                TWO_PASS.replacen("args", "arg", 1),
                Some(10),
                "unknown key `arg`; did you mean `args`?",
            ),
            (
                expect.clone(),
                Some(4),
                "unknown `expect` value `wrongg`; did you mean `wrong`?",
            ),
            (
                expect.replace("wrongg", "crash"),
                Some(4),
                "unknown `expect` value `crash`: use pass, wrong, compile-error, launch-error, fault or timeout",
            ),
            (
                TWO_PASS.replace("sum_f32", "sum_f23"),
                Some(2),
                "unknown problem `sum_f23`; did you mean `sum_f32`?",
            ),
            (
                TWO_PASS.replace("sum_f32", "fourier"),
                Some(2),
                "unknown problem `fourier`: use sum_f32, softmax_rows, layernorm_rows, transpose, histogram_u8, histogram_u8_skewed, scan_f32, matmul_f32, pointer_chase, fma_f32, elementwise or transfer",
            ),
        ];
        for (text, line, want) in cases {
            let err = Declaration::parse(&text).unwrap_err();
            assert_eq!(err.to_string(), want);
            assert_eq!(err.line(), line, "{want}");
        }
    }

    // A semantic error is at the line of the key it is about: a launch's
    // empty `args` at that launch's `args`, an empty `sizes` at `sizes`.
    #[test]
    fn semantic_errors_are_at_their_key() {
        let no_args = TWO_PASS.replace("args = [\"partials\", \"out\", \"grid0\"]", "args = []");
        let e = Declaration::parse(&no_args).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("launch 1 (`final_sum`) has no `args`"),
            "{e}"
        );
        let args_line = no_args.lines().position(|l| l == "args = []").unwrap() + 1;
        assert_eq!(e.line(), Some(args_line));
        let no_sizes = TWO_PASS.replace("sizes = [\"2^20\", 1000003]", "sizes = []");
        assert_eq!(Declaration::parse(&no_sizes).unwrap_err().line(), Some(3));
    }

    // A TOML error is at the line its span starts on, with the first line
    // of the parser's message; a missing key has no line of its own.
    #[test]
    fn toml_errors_have_their_line() {
        let cases = [
            (
                TWO_PASS.replace("block = 512", "block = 512 512"),
                Some(9),
                "the example header is not valid: ",
            ),
            (
                TWO_PASS.replace("grid = 1\n", "grid = [1]\n"),
                Some(13),
                "the example header is not valid: a launch dimension is a whole number or an expression in quotes, e.g. grid = \"ceil_div(n, 256)\"",
            ),
            (
                TWO_PASS.replace("\"2^20\"", "\"2^x\""),
                Some(3),
                "the example header is not valid: `2^x` is not a size",
            ),
            (
                TWO_PASS.replace("\"grid0\"]", "\"grid0\""),
                Some(16),
                "the example header is not valid: ",
            ),
            (
                TWO_PASS.replace("problem = \"sum_f32\"\n", ""),
                None,
                "the example header is not valid: missing field `problem`",
            ),
        ];
        for (text, line, want) in cases {
            let err = Declaration::parse(&text).unwrap_err();
            let message = err.to_string();
            assert!(message.starts_with(want), "{message}");
            assert!(!message.contains('\n'), "{message}");
            assert_eq!(err.line(), line, "{message}");
        }
    }

    // Sizes past the problem's limit are refused with the limit and why;
    // n used to wrap silently in the kernels' 32-bit index arithmetic.
    #[test]
    fn sizes_past_the_problem_limit_are_refused() {
        let err = Declaration::parse(&TWO_PASS.replace("\"2^20\"", "\"2^33\""))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("size 2^33 (8589934592 elements) is beyond what `sum_f32` takes: at most 2^31 (2147483648), because kernels take n as an unsigned int"),
            "{err}"
        );
        assert!(Declaration::parse(&TWO_PASS.replace("\"2^20\"", "\"2^31\"")).is_ok());
    }

    // Options that name files are refused (an include path would let an
    // angle include read any file); macros and code generation are fine.
    #[test]
    fn compile_options_that_name_files_are_refused() {
        let with =
            |opt: &str| TWO_PASS.replace("[scratch]", &format!("compile = [\"{opt}\"]\n[scratch]"));
        for bad in [
            "-I/etc",
            "--include-path=/etc",
            "--pre-include=/etc/passwd",
            "-include",
            "-time=/tmp/x",
        ] {
            let err = Declaration::parse(&with(bad)).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!(
                    "compile option `{bad}` is not one of the accepted options"
                )),
                "{err}"
            );
        }
        for good in [
            "-DTILE=4",
            "--use_fast_math",
            "-maxrregcount=64",
            "-std=c++20",
        ] {
            assert!(Declaration::parse(&with(good)).is_ok(), "{good}");
        }
    }

    // `compile_timeout_s` is left out of the serialised form when absent
    // (committed keys stay), kept when set, and refused at its line when 0.
    #[test]
    fn compile_timeout_is_optional_and_positive() {
        let d = Declaration::parse(TWO_PASS).unwrap();
        let json = serde_json::to_string(&d).unwrap();
        assert!(!json.contains("compile_timeout_s"), "{json}");
        let set = Declaration::parse(&format!("compile_timeout_s = 5\n{TWO_PASS}")).unwrap();
        assert_eq!(set.compile_timeout_s, Some(5));
        let json = serde_json::to_string(&set).unwrap();
        assert!(json.contains("\"compile_timeout_s\":5"), "{json}");
        let err = Declaration::parse(&format!("compile_timeout_s = 0\n{TWO_PASS}")).unwrap_err();
        assert_eq!(err.line(), Some(1));
        assert!(err.to_string().contains("at least 1"), "{err}");
    }

    // Sizes serialise as they did before sizes had dimensions (numbers,
    // "2^20" as 1048576, the resolved list not at all), so that the key of
    // every committed example stays as it was.
    #[test]
    fn sizes_serialise_as_before() {
        let d = Declaration::parse(TWO_PASS).unwrap();
        let json = serde_json::to_string(&d).unwrap();
        assert!(json.contains("\"sizes\":[1048576,1000003]"), "{json}");
        assert_eq!(json.matches("sizes").count(), 1, "{json}");
    }

    // A size of the wrong shape for its problem is an error at `sizes`
    // that says how to write one; a declared size reads in any form.
    #[test]
    fn sizes_are_read_against_the_problems_dimensions() {
        let bad = TWO_PASS.replace("sizes = [\"2^20\", 1000003]", "sizes = [\"8192x8192\"]");
        let err = Declaration::parse(&bad).unwrap_err();
        assert_eq!(err.line(), Some(3));
        assert!(
            err.to_string()
                .contains("`sum_f32`: `8192x8192` is not a size of n: it has 2 values"),
            "{err}"
        );
        let d = Declaration::parse(TWO_PASS).unwrap();
        assert_eq!(d.declared_size("2^20").unwrap(), Dims::n(1 << 20));
        assert_eq!(d.declared_size("n = 1048576").unwrap(), Dims::n(1 << 20));
        let undeclared = d.declared_size("2^21").unwrap_err().to_string();
        assert!(
            undeclared.contains("its sizes are 2^20; 1000003"),
            "{undeclared}"
        );
    }

    // Today's scratch form and launches without `setup` serialise as they
    // always did (so committed keys stay); the table form keeps only what
    // is written.
    #[test]
    fn scratch_and_setup_serialise_old_forms_unchanged() {
        let d = Declaration::parse(TWO_PASS).unwrap();
        let json = serde_json::to_string(&d).unwrap();
        assert!(
            json.contains("\"scratch\":{\"partials\":\"grid0\"}"),
            "{json}"
        );
        assert!(!json.contains("setup"), "{json}");
        let table = TWO_PASS.replace(
            "partials = \"grid0\"",
            "partials = { len = \"grid0\", elem = \"u32\", init = \"zeroed\" }",
        );
        let t = Declaration::parse(&table).unwrap();
        let json = serde_json::to_string(&t).unwrap();
        assert!(
            json.contains("\"partials\":{\"len\":\"grid0\",\"elem\":\"u32\",\"init\":\"zeroed\"}"),
            "{json}"
        );
        let s = &t.scratch["partials"];
        assert_eq!(
            (s.elem(), s.init()),
            (crate::problem::Elem::U32, ScratchInit::Zeroed)
        );
        assert_eq!(d.scratch["partials"].init(), ScratchInit::Kept);
    }

    // Mistakes in the new forms are errors at their lines with the fix.
    #[test]
    fn scratch_table_and_setup_mistakes_name_their_lines() {
        let bad_elem = TWO_PASS.replace(
            "partials = \"grid0\"",
            "partials = { len = \"grid0\", elem = \"u23\" }",
        );
        let e = Declaration::parse(&bad_elem).unwrap_err();
        assert_eq!(e.line(), Some(5));
        assert!(
            e.to_string()
                .contains("no element type `u23`; did you mean `u32`?"),
            "{e}"
        );
        let bad_init = TWO_PASS.replace(
            "partials = \"grid0\"",
            "partials = { len = \"grid0\", init = \"zero\" }",
        );
        assert!(Declaration::parse(&bad_init).is_err());
        let late = TWO_PASS.replace(
            "kernel = \"final_sum\"",
            "kernel = \"final_sum\"\nsetup = true",
        );
        let e = Declaration::parse(&late).unwrap_err();
        assert!(
            e.to_string().contains("setup launch after a timed one"),
            "{e}"
        );
        assert_eq!(e.line(), Some(13));
    }

    // A header without launches tells the author what to add.
    #[test]
    fn missing_launch_says_what_to_add() {
        let err = Declaration::parse("problem = \"sum_f32\"\nsizes = [1]\nlaunch = []")
            .unwrap_err()
            .to_string();
        assert!(err.contains("[[launch]]"), "{err}");
    }
}
