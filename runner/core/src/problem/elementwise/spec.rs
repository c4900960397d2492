//! The `[elementwise]` table as the header writes it, and its validation.

use super::reference::Reference;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How an index input is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexDraw {
    /// Every position 0..n once, in a random order with no element left
    /// in place (one cycle through all n, Sattolo's algorithm): a kernel
    /// that reads `x[i]` instead of `x[idx[i]]` is wrong at every element.
    Permutation,
    /// Each element uniform in [0, n), independently: some positions twice,
    /// some never.
    Uniform,
}

impl IndexDraw {
    /// Its name in headers.
    pub fn name(self) -> &'static str {
        match self {
            IndexDraw::Permutation => "permutation",
            IndexDraw::Uniform => "uniform",
        }
    }
}

/// What a read outside `0..n` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Boundary {
    /// Zero (for an index input, position 0).
    Zero,
    /// The nearest element: element 0 below, element n - 1 above.
    Clamp,
    /// The element `n` further on or back: position modulo n.
    Wrap,
}

/// The `[elementwise]` table of a header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementwiseSpec {
    /// Input buffers, in order; each its own random stream.
    pub inputs: Vec<String>,
    /// Float scalars by name.
    #[serde(default)]
    pub scalars: BTreeMap<String, f64>,
    /// The output buffer: a new name, or an input's (in place).
    pub output: String,
    /// The float64 value of each output element.
    pub reference: String,
    /// The largest error allowed, |y - ref| / max(|ref|, 1).
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Inputs that hold positions (`int`, in [0, n)) instead of floats,
    /// with how each is drawn. Left out of the serialised form when empty,
    /// so that keys made before it existed stay as they were.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub indices: BTreeMap<String, IndexDraw>,
    /// Inputs that are arrays of structures, with each one's `float`
    /// fields in memory order. Left out of the serialised form when empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub structs: BTreeMap<String, Vec<String>>,
    /// What a read outside 0..n (`x[i + 1]` at the last element) gives;
    /// required by a reference that shifts, refused by one that does not.
    /// Left out of the serialised form when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
}

// Scalars and tolerances are never NaN (validation refuses what is not
// a number between bounds), so equality is an equivalence.
impl Eq for ElementwiseSpec {}

/// What an input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind<'s> {
    /// n floats.
    Float,
    /// n positions (`int`), drawn as said.
    Index(IndexDraw),
    /// n structures of these `float` fields.
    Struct(&'s [String]),
}

/// Names a buffer or scalar may not take: the launch variables, `i` (the
/// element's index in references), and the constants and functions of the
/// reference language (an input named `E` would be read as Euler's number).
pub(crate) const RESERVED: &[&str] = &[
    "n", "sms", "rows", "cols", "i", "E", "e", "PI", "π", "TAU", "τ", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "ln", "log", "log2",
    "log10", "sqrt", "cbrt", "abs", "signum", "floor", "ceil", "round", "fract", "trunc", "fact",
    "min", "max", "atan2",
];

fn plain(n: &str) -> bool {
    n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl ElementwiseSpec {
    /// What input `name` holds; `None` when it is not an input.
    pub fn kind(&self, name: &str) -> Option<InputKind<'_>> {
        if !self.inputs.iter().any(|n| n == name) {
            return None;
        }
        Some(match (self.indices.get(name), self.structs.get(name)) {
            (Some(draw), _) => InputKind::Index(*draw),
            (None, Some(fields)) => InputKind::Struct(fields),
            (None, None) => InputKind::Float,
        })
    }

    /// What is wrong with the table, in words that say how to fix it, with
    /// the key it is about.
    pub fn validate(&self) -> Result<(), (String, &'static str)> {
        if self.inputs.is_empty() {
            return Err((
                "`inputs` is empty: name at least one input buffer, e.g. inputs = [\"x\"]".into(),
                "inputs",
            ));
        }
        let mut names: Vec<&str> = Vec::new();
        for n in self.inputs.iter().chain(self.scalars.keys()) {
            let key = if self.inputs.contains(n) {
                "inputs"
            } else {
                "scalars"
            };
            if !plain(n) {
                return Err((
                    format!("`{n}` is not a plain name (a letter, then letters, digits or _)"),
                    key,
                ));
            }
            if names.contains(&n.as_str()) || RESERVED.contains(&n.as_str()) {
                return Err((
                    format!(
                        "`{n}` is named twice, or is a launch variable (n, sms, rows, cols), the element index i, or a constant or function of `reference` (E, PI, sin, exp, min, ...): rename it"
                    ),
                    key,
                ));
            }
            names.push(n);
        }
        self.validate_layouts()?;
        if !plain(&self.output)
            || self.scalars.contains_key(&self.output)
            || RESERVED.contains(&self.output.as_str())
        {
            return Err((
                format!(
                    "`{}` cannot be the output: give a buffer name, new or one of the inputs",
                    self.output
                ),
                "output",
            ));
        }
        match self.kind(&self.output) {
            Some(InputKind::Index(_)) | Some(InputKind::Struct(_)) => {
                return Err((
                    format!(
                        "`{}` cannot be the output: the output is n floats, and `{0}` is an index input or a structure; give a new name",
                        self.output
                    ),
                    "output",
                ));
            }
            _ => {}
        }
        let reference = Reference::parse(self).map_err(|m| (m.to_string(), "reference"))?;
        let expr = exmex::parse::<f64>(&reference.text)
            .map_err(|e| (format!("`reference` does not parse: {e}"), "reference"))?;
        drop(expr);
        if let Some(read) = reference
            .reads()
            .find(|r| r.input == self.output && !r.pos.is_i())
        {
            return Err((
                format!(
                    "`reference` reads `{read}`, another element of the output `{}`: a kernel that updates it in place would read elements other threads overwrite; write a new output (output = \"out\")",
                    self.output
                ),
                "output",
            ));
        }
        match (reference.first_shift(), self.boundary) {
            (Some(read), None) => {
                return Err((
                    format!(
                        "`reference` reads `{read}`, which lies outside the input at the first or last elements: declare what such a read gives, boundary = \"zero\", \"clamp\" or \"wrap\""
                    ),
                    "reference",
                ));
            }
            (None, Some(_)) => {
                return Err((
                    "`boundary` says what a read outside 0..n gives, but `reference` reads none (no x[i + K]): remove it".into(),
                    "boundary",
                ));
            }
            _ => {}
        }
        if let Some((name, _)) = self.scalars.iter().find(|(_, v)| !v.is_finite()) {
            return Err((
                format!("scalar `{name}` must be a finite number"),
                "scalars",
            ));
        }
        if self.tolerance.is_some_and(|t| !(t > 0.0 && t < 1.0)) {
            return Err(("`tolerance` must be between 0 and 1".into(), "tolerance"));
        }
        Ok(())
    }

    /// `indices` and `structs` name inputs, and layouts are plain fields.
    fn validate_layouts(&self) -> Result<(), (String, &'static str)> {
        let not_input = |name: &str, key: &str, example: &str| {
            crate::suggest::message(
                &format!("`{name}` in `{key}` is not an input"),
                name,
                self.inputs.iter().map(String::as_str),
                &format!(
                    "add it to `inputs` too, e.g. inputs = [\"x\", \"{name}\"] with {example}"
                ),
            )
        };
        if let Some(name) = self.indices.keys().find(|n| !self.inputs.contains(n)) {
            return Err((
                not_input(name, "indices", &format!("{name} = \"permutation\"")),
                "indices",
            ));
        }
        for (name, fields) in &self.structs {
            if !self.inputs.contains(name) {
                return Err((
                    not_input(name, "structs", &format!("{name} = [\"x\", \"y\"]")),
                    "structs",
                ));
            }
            if self.indices.contains_key(name) {
                return Err((
                    format!(
                        "`{name}` is both an index input and a structure: keep it in one of `indices` and `structs`"
                    ),
                    "structs",
                ));
            }
            if fields.is_empty() {
                return Err((
                    format!(
                        "the structure `{name}` has no fields: list its float fields in memory order, e.g. {name} = [\"x\", \"y\", \"z\", \"w\"]"
                    ),
                    "structs",
                ));
            }
            for (k, f) in fields.iter().enumerate() {
                if !plain(f) || fields[..k].contains(f) {
                    return Err((
                        format!(
                            "field `{f}` of `{name}` is not a plain name (a letter, then letters, digits or _) or is listed twice"
                        ),
                        "structs",
                    ));
                }
            }
        }
        Ok(())
    }
}
