//! `elementwise`: a problem an author declares in the header instead of
//! writing Rust. Each output element is a function of the inputs' elements
//! at the same index and of float scalars, given as a float64 expression:
//!
//! ```toml
//! problem = "elementwise"
//! [elementwise]
//! inputs = ["x", "y"]       # read; each uniform in [-1, 1), its own stream
//! scalars = { a = 2.5 }     # passed to the kernel as `float`
//! output = "y"              # written; an input's name makes it in place
//! reference = "a * x + y"   # the float64 value of each output element
//! ```
//!
//! The reference language is `exmex`'s: `+ - * /`, `^`, parentheses,
//! numbers, the input and scalar names, and functions such as `sqrt`,
//! `exp`, `ln`, `abs`, `sin`, `cos`, `tanh`. Buffers are float32. An
//! output that is an input is restored to the input's values before every
//! cold run and every checked run (from a copy on the device, outside the
//! timed region), so a kernel
//! that updates in place is checked against the original inputs. (The hot
//! figure repeats the kernel back to back with nothing in between, so an
//! in-place kernel's hot runs work on their own output.)
//!
//! The check is per element: error = |y - ref| / max(|ref|, 1), an
//! absolute error for values under 1 and a relative one above, held to
//! `tolerance` (default 2^-20, sixteen float32 units of roundoff: room for
//! a few operations in any order, with or without fused multiply-adds).
//! Every element is checked, so an element skipped, written twice or
//! written to the wrong place fails at the edge sizes as at the timed ones.

use super::draw;
use super::{
    Bound, BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit,
    Prepared, Problem, Scalar, Shape, output,
};
use exmex::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Bumped whenever inputs or the check change; part of every key.
pub const VERSION: u32 = 1;

/// The default tolerance: 2^-20.
pub const DEFAULT_TOLERANCE: f64 = 1.0 / (1u64 << 20) as f64;

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
}

// Scalars and tolerances are never NaN (validation refuses what is not
// a number between bounds), so equality is an equivalence.
impl Eq for ElementwiseSpec {}

impl ElementwiseSpec {
    /// What is wrong with the table, in words that say how to fix it, with
    /// the key it is about.
    pub fn validate(&self) -> Result<(), (String, &'static str)> {
        let plain = |n: &str| {
            n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if self.inputs.is_empty() {
            return Err((
                "`inputs` is empty: name at least one input buffer, e.g. inputs = [\"x\"]".into(),
                "inputs",
            ));
        }
        let mut names: Vec<&str> = Vec::new();
        for n in self.inputs.iter().chain(self.scalars.keys()) {
            if !plain(n) {
                return Err((
                    format!("`{n}` is not a plain name (a letter, then letters, digits or _)"),
                    if self.inputs.contains(n) {
                        "inputs"
                    } else {
                        "scalars"
                    },
                ));
            }
            if names.contains(&n.as_str()) || RESERVED.contains(&n.as_str()) {
                return Err((
                    format!(
                        "`{n}` is named twice, or is a launch variable (n, sms, rows, cols) or a constant or function of `reference` (E, PI, sin, exp, ...): rename it"
                    ),
                    if self.inputs.contains(n) {
                        "inputs"
                    } else {
                        "scalars"
                    },
                ));
            }
            names.push(n);
        }
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
        let expr = exmex::parse::<f64>(&self.reference)
            .map_err(|e| (format!("`reference` does not parse: {e}"), "reference"))?;
        if let Some(unknown) = expr
            .var_names()
            .iter()
            .find(|v| !names.contains(&v.as_str()))
        {
            return Err((
                crate::suggest::message(
                    &format!(
                        "`reference` uses `{unknown}`, which is neither an input nor a scalar"
                    ),
                    unknown,
                    names.iter().copied(),
                    &format!("use {}", names.join(", ")),
                ),
                "reference",
            ));
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
}

/// Names a buffer or scalar may not take: the launch variables, and the
/// constants and functions of the reference language (an input named `E`
/// would be read as Euler's number).
const RESERVED: &[&str] = &[
    "n", "sms", "rows", "cols", "E", "PI", "π", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "ln", "log", "log2", "log10", "sqrt",
    "cbrt", "abs", "signum", "floor", "ceil", "round", "fract", "trunc", "fact",
];

/// The problem of one `[elementwise]` table.
pub struct Elementwise {
    spec: ElementwiseSpec,
}

impl Elementwise {
    /// The problem of `spec` (validated by the declaration).
    pub fn new(spec: ElementwiseSpec) -> Self {
        Elementwise { spec }
    }

    fn in_place(&self) -> bool {
        self.spec.inputs.contains(&self.spec.output)
    }
}

impl Problem for Elementwise {
    fn name(&self) -> &'static str {
        "elementwise"
    }

    fn version(&self) -> u32 {
        VERSION
    }

    fn data_tag(&self) -> String {
        self.spec.inputs.join("+")
    }

    fn check_tag(&self) -> String {
        // The whole declared table: reference, scalars, output, tolerance.
        let spec = serde_json::to_vec(&self.spec).expect("the spec serialises");
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&spec))
    }

    fn summary(&self) -> &'static str {
        "each output element a float64 expression of the inputs' elements, declared in [elementwise]"
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let n = instance.shape.elements();
        let mut buffers: Vec<BufferSpec> = self
            .spec
            .inputs
            .iter()
            .map(|name| BufferSpec {
                name: leak(name),
                elem: Elem::F32,
                len: n,
                role: if *name == self.spec.output {
                    BufferRole::InOut
                } else {
                    BufferRole::Input
                },
            })
            .collect();
        if !self.in_place() {
            buffers.push(BufferSpec {
                name: leak(&self.spec.output),
                elem: Elem::F32,
                len: n,
                role: BufferRole::Output(OutputInit::Poison),
            });
        }
        buffers
    }

    fn scalars(&self) -> Vec<(&'static str, Scalar)> {
        self.spec
            .scalars
            .iter()
            .map(|(name, v)| (leak(name), Scalar::F32(*v as f32)))
            .collect()
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let n = instance.shape.elements();
        Prepared {
            inputs: self
                .spec
                .inputs
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let rng = draw::generator(seed, k as u64, n);
                    (
                        name.clone(),
                        HostData::F32(draw::uniform(&rng, n, -1.0, 1.0)),
                    )
                })
                .collect(),
            reference: Vec::new(),
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let tolerance = self.spec.tolerance.unwrap_or(DEFAULT_TOLERANCE);
        let expr = exmex::parse::<f64>(&self.spec.reference).expect("validated reference");
        // Each variable of the expression, in exmex's order: an input's
        // values or a scalar's (as float32, as the kernel receives it).
        let sources: Vec<Result<&HostData, f64>> = expr
            .var_names()
            .iter()
            .map(|v| match prepared.input(v) {
                Some(d) => Ok(d),
                None => Err(f64::from(self.spec.scalars[v.as_str()] as f32)),
            })
            .collect();
        let Some(y) = output(outputs, &self.spec.output) else {
            return CheckOutcome {
                error: f64::INFINITY,
                tolerance,
                pass: false,
                detail: format!("no output `{}`", self.spec.output),
            };
        };
        let n = instance.shape.elements() as usize;
        let chunk = n.div_ceil(draw::threads()).max(1);
        let worst = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .step_by(chunk)
                .map(|start| {
                    let (expr, sources) = (&expr, &sources);
                    scope.spawn(move || {
                        let mut vars = vec![0.0; sources.len()];
                        let mut worst = (0.0f64, 0usize, 0.0f64, 0.0f64);
                        for i in start..(start + chunk).min(n) {
                            for (v, s) in vars.iter_mut().zip(sources) {
                                *v = match s {
                                    Ok(d) => d.get(i),
                                    Err(c) => *c,
                                };
                            }
                            let want = expr.eval(&vars).unwrap_or(f64::NAN);
                            let got = y.get(i);
                            let e = super::relative_error(got, want, want.abs().max(1.0));
                            let e = if e.is_nan() { f64::INFINITY } else { e };
                            if e > worst.0 {
                                worst = (e, i, want, got);
                            }
                        }
                        worst
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a checking thread panicked"))
                .fold((0.0, 0, 0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
        });
        let (error, i, want, got) = worst;
        CheckOutcome {
            error,
            tolerance,
            pass: error <= tolerance,
            detail: format!("largest error at element {i}: expected {want:.7}, got {got}"),
        }
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        let n = instance.shape.elements();
        // Every input read once, the output written once.
        4 * n * (self.spec.inputs.len() as u64 + 1)
    }

    fn bound(&self) -> Bound {
        Bound::Copy
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        [1, 1000, 1_000_003].into_iter().map(Shape::flat).collect()
    }
}

/// A name for the life of the process: buffer and scalar names are
/// `&'static str` in the problem interface. Each distinct name is leaked
/// once and reused, so however often buffers are listed, a process keeps
/// one copy of each name its examples use.
fn leak(name: &str) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.iter().find(|n| **n == name) {
        return known;
    }
    let new: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(new);
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> ElementwiseSpec {
        toml::from_str(toml_text).unwrap()
    }

    const SAXPY: &str = "inputs = [\"x\", \"y\"]\nscalars = { a = 2.5 }\noutput = \"y\"\nreference = \"a * x + y\"\n";

    fn saxpy_in_f32(p: &Prepared, a: f32) -> Vec<f32> {
        let (x, y) = (p.input("x").unwrap(), p.input("y").unwrap());
        (0..x.len())
            .map(|i| a.mul_add(x.get(i) as f32, y.get(i) as f32))
            .collect()
    }

    // SAXPY in float32 passes; inputs are independent (x != y), so a
    // kernel that reads x twice fails; one element missed fails.
    #[test]
    fn saxpy_passes_and_mistakes_fail() {
        let p = Elementwise::new(spec(SAXPY));
        let i = Instance {
            shape: Shape::flat(1000),
            dtype: Elem::F32,
        };
        let prepared = p.prepare(&i, 3, Data::Timed);
        let check = |y: Vec<f32>| p.check(&i, &prepared, &[("y", &HostData::F32(y))], Data::Timed);
        assert!(check(saxpy_in_f32(&prepared, 2.5)).pass);
        let x = prepared.input("x").unwrap();
        let twice: Vec<f32> = (0..1000)
            .map(|k| 2.5 * x.get(k) as f32 + x.get(k) as f32)
            .collect();
        assert!(!check(twice).pass, "x + x must not pass for x + y");
        let mut missed = saxpy_in_f32(&prepared, 2.5);
        missed[999] = f32::NAN;
        let c = check(missed);
        assert!(!c.pass && c.detail.contains("element 999"), "{}", c.detail);
    }

    // In place: the output is the input's buffer, restored before runs.
    #[test]
    fn an_output_named_as_an_input_is_in_place() {
        let p = Elementwise::new(spec(SAXPY));
        let buffers = p.buffers(&Instance {
            shape: Shape::flat(8),
            dtype: Elem::F32,
        });
        let roles: Vec<(&str, &BufferRole)> = buffers.iter().map(|b| (b.name, &b.role)).collect();
        assert_eq!(
            roles,
            [("x", &BufferRole::Input), ("y", &BufferRole::InOut)]
        );
        assert_eq!(p.scalars(), [("a", Scalar::F32(2.5))]);
    }

    // Validation names the key and the name meant.
    #[test]
    fn bad_tables_name_their_key() {
        let typo =
            spec("inputs = [\"xs\", \"ys\"]\noutput = \"out\"\nreference = \"2 * xs + yss\"\n");
        let (message, key) = typo.validate().unwrap_err();
        assert_eq!(key, "reference");
        assert!(
            message.contains("uses `yss`") && message.contains("did you mean `ys`?"),
            "{message}"
        );
        let n = spec(&SAXPY.replace("[\"x\", \"y\"]", "[\"n\", \"y\"]"));
        assert_eq!(n.validate().unwrap_err().1, "inputs");
        let constant = spec(&SAXPY.replace("[\"x\", \"y\"]", "[\"E\", \"y\"]"));
        assert_eq!(
            constant.validate().unwrap_err().1,
            "inputs",
            "E is Euler's number"
        );
        let broken = spec(&SAXPY.replace("a * x + y", "a * (x + y"));
        assert_eq!(broken.validate().unwrap_err().1, "reference");
        assert!(spec(SAXPY).validate().is_ok());
    }
}
