//! `elementwise`: a problem an author declares in the header instead of
//! writing Rust. Each output element is a float64 expression of float
//! scalars and of input elements: at the same index (`x`), at another
//! (`x[i + 1]`, with a declared boundary), at a position an index input
//! holds (`x[idx[i]]`, a gather), or a field of an array of structures
//! (`p.x`, `p[idx[i]].y`):
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
//! `indices = { idx = "permutation" }` makes input `idx` n positions
//! (`int`) instead of floats; `[elementwise.structs] p = ["x", "y", "z",
//! "w"]` makes input `p` n structures of those `float` fields;
//! `boundary = "zero" | "clamp" | "wrap"` says what a read outside 0..n
//! gives ([`reference`] reads the expression, [`spec`] validates it).
//!
//! The reference language is otherwise `exmex`'s: `+ - * /`, `^`,
//! parentheses, numbers, and functions such as `sqrt`, `exp`, `ln`, `abs`,
//! `sin`, `cos`, `tanh`, `min(a, b)`. An
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

mod indices;
pub mod reference;
pub mod spec;

use super::draw;
use super::{
    Bound, BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit,
    Prepared, Problem, Scalar, Shape, output,
};
use exmex::prelude::*;
use reference::{Base, Pos, Read, Reference, Var};
pub use spec::{Boundary, ElementwiseSpec, IndexDraw, InputKind};

/// Bumped whenever inputs or the check change; part of every key.
pub const VERSION: u32 = 1;

/// The default tolerance: 2^-20.
pub const DEFAULT_TOLERANCE: f64 = 1.0 / (1u64 << 20) as f64;

/// The largest size of a table with index inputs: positions are `int`.
const INDEX_MAX: u64 = 1 << 31;

/// The problem of one `[elementwise]` table.
pub struct Elementwise {
    spec: ElementwiseSpec,
    /// The reference read ([`Reference::parse`]); an error only for a
    /// table validation refuses.
    reference: Result<Reference, reference::ReferenceError>,
}

impl Elementwise {
    /// The problem of `spec` (validated by the declaration).
    pub fn new(spec: ElementwiseSpec) -> Self {
        let reference = Reference::parse(&spec);
        Elementwise { spec, reference }
    }

    fn in_place(&self) -> bool {
        self.spec.inputs.contains(&self.spec.output)
    }

    /// Elements of input `name`'s buffer per output element: the number of
    /// fields of a structure, else 1.
    fn stride(&self, name: &str) -> u64 {
        match self.spec.kind(name) {
            Some(InputKind::Struct(fields)) => fields.len() as u64,
            _ => 1,
        }
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
        // The input names, and for inputs that are not plain floats what
        // they hold (nothing more for tables without them, whose data
        // files keep their names).
        let mut tag = self.spec.inputs.join("+");
        for name in &self.spec.inputs {
            match self.spec.kind(name) {
                Some(InputKind::Index(draw)) => tag.push_str(&format!("+{name}:{}", draw.name())),
                Some(InputKind::Struct(fields)) => {
                    tag.push_str(&format!("+{name}:{}", fields.len()))
                }
                _ => {}
            }
        }
        tag
    }

    fn check_tag(&self) -> String {
        // The whole declared table: reference, scalars, output, tolerance.
        let spec = serde_json::to_vec(&self.spec).expect("the spec serialises");
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&spec))
    }

    fn summary(&self) -> &'static str {
        "each output element a float64 expression of the inputs' elements (at its index, shifted, gathered or a structure's field), declared in [elementwise]"
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let n = instance.shape.elements();
        let mut buffers: Vec<BufferSpec> = self
            .spec
            .inputs
            .iter()
            .map(|name| BufferSpec {
                name: leak(name),
                elem: match self.spec.kind(name) {
                    Some(InputKind::Index(_)) => Elem::I32,
                    _ => Elem::F32,
                },
                len: n * self.stride(name),
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
                    let data = match self.spec.kind(name) {
                        Some(InputKind::Index(how)) => indices::draw(how, &rng, n),
                        _ => HostData::F32(draw::uniform(&rng, n * self.stride(name), -1.0, 1.0)),
                    };
                    (name.clone(), data)
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
        let n = instance.shape.elements() as usize;
        let values = self.values(prepared, n);
        let Some(y) = output(outputs, &self.spec.output) else {
            return CheckOutcome {
                error: f64::INFINITY,
                tolerance,
                pass: false,
                detail: format!("no output `{}`", self.spec.output),
            };
        };
        let chunk = n.div_ceil(draw::threads()).max(1);
        let worst = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .step_by(chunk)
                .map(|start| {
                    let values = &values;
                    scope.spawn(move || {
                        let mut vars = values.scratch();
                        let mut worst = (0.0f64, 0usize, 0.0f64, 0.0f64);
                        for i in start..(start + chunk).min(n) {
                            let want = values.at(&mut vars, i);
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
        // Each input read once (a structure: only the fields the reference
        // reads, AUTHORING.md §3), the output written once.
        let read: u64 = self
            .spec
            .inputs
            .iter()
            .map(|name| match (self.spec.kind(name), &self.reference) {
                (Some(InputKind::Struct(_)), Ok(r)) => r.fields_read(name).len() as u64,
                (Some(InputKind::Struct(fields)), Err(_)) => fields.len() as u64,
                _ => 1,
            })
            .sum();
        4 * n * (read + 1)
    }

    fn bound(&self) -> Bound {
        Bound::Copy
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        [1, 1000, 1_000_003].into_iter().map(Shape::flat).collect()
    }

    fn max_size(&self) -> (u64, &'static str) {
        if self.spec.indices.is_empty() {
            (
                u64::from(u32::MAX),
                "kernels receive sizes as 32-bit unsigned ints",
            )
        } else {
            (
                INDEX_MAX,
                "index inputs hold positions as `int`, which stop at 2^31 - 1",
            )
        }
    }
}

/// The float64 reference of every output element of one run.
struct Values<'a> {
    expr: FlatEx<f64>,
    sources: Vec<Source<'a>>,
    reads: Reads,
}

impl Values<'_> {
    /// Room for one thread's variables.
    fn scratch(&self) -> Vec<f64> {
        vec![0.0; self.sources.len()]
    }

    /// The reference of output element `i`; NaN where it is undefined.
    fn at(&self, vars: &mut [f64], i: usize) -> f64 {
        for (v, s) in vars.iter_mut().zip(&self.sources) {
            *v = match s {
                Source::Const(c) => *c,
                Source::Read(r) => self.reads.value(r, i),
            };
        }
        self.expr.eval(vars).unwrap_or(f64::NAN)
    }
}

/// Where one variable's values come from.
enum Source<'a> {
    /// A scalar.
    Const(f64),
    /// An input element.
    Read(ReadSource<'a>),
}

/// An input element's read, resolved to the prepared data.
struct ReadSource<'a> {
    /// The input's floats.
    data: &'a [f32],
    /// Floats per element (a structure's fields) and the field's place.
    stride: usize,
    field: usize,
    pos: PosSource<'a>,
}

/// A position, resolved to the prepared data of its index inputs.
struct PosSource<'a> {
    base: Option<(&'a [i32], Box<PosSource<'a>>)>,
    offset: i64,
}

/// How reads outside 0..n resolve.
struct Reads {
    n: usize,
    boundary: Boundary,
}

impl Reads {
    /// The element `pos` names for output element `i`, or `None` where
    /// the boundary makes the read zero.
    fn at(&self, pos: &PosSource<'_>, i: usize) -> Option<usize> {
        let base = match &pos.base {
            None => i as i64,
            Some((index, inner)) => self.at(inner, i).map_or(0, |k| i64::from(index[k])),
        };
        let (p, n) = (base + pos.offset, self.n as i64);
        if (0..n).contains(&p) {
            return Some(p as usize);
        }
        match self.boundary {
            Boundary::Zero => None,
            Boundary::Clamp => Some(p.clamp(0, n - 1) as usize),
            Boundary::Wrap => Some(p.rem_euclid(n) as usize),
        }
    }

    /// The float64 value `read` gives at output element `i`.
    fn value(&self, read: &ReadSource<'_>, i: usize) -> f64 {
        self.at(&read.pos, i)
            .map_or(0.0, |k| f64::from(read.data[k * read.stride + read.field]))
    }
}

impl Elementwise {
    /// The reference of a run of `n` elements on `prepared`.
    fn values<'a>(&self, prepared: &'a Prepared, n: usize) -> Values<'a> {
        let reference = self.reference.as_ref().expect("validated reference");
        let expr = exmex::parse::<f64>(&reference.text).expect("validated reference");
        // Each variable of the expression, in exmex's order: an input
        // element or a scalar (as float32, as the kernel receives it).
        let sources: Vec<Source<'_>> = expr
            .var_names()
            .iter()
            .map(
                |v| match reference.var(v).expect("every variable is read") {
                    Var::Scalar(name) => Source::Const(f64::from(self.spec.scalars[name] as f32)),
                    Var::Read(read) => Source::Read(self.source(read, prepared)),
                },
            )
            .collect();
        Values {
            expr,
            sources,
            reads: Reads {
                n,
                boundary: self.spec.boundary.unwrap_or(Boundary::Zero),
            },
        }
    }

    fn source<'a>(&self, read: &Read, prepared: &'a Prepared) -> ReadSource<'a> {
        let floats = |name: &str| -> &'a [f32] {
            prepared
                .input(name)
                .and_then(HostData::as_f32)
                .expect("a float input is prepared")
        };
        fn resolve<'a>(pos: &Pos, prepared: &'a Prepared) -> PosSource<'a> {
            PosSource {
                base: match &pos.base {
                    Base::I => None,
                    Base::Index(name, inner) => match prepared.input(name) {
                        Some(HostData::I32(v)) => {
                            Some((v.as_slice(), Box::new(resolve(inner, prepared))))
                        }
                        _ => panic!("index input `{name}` is prepared as int"),
                    },
                },
                offset: pos.offset,
            }
        }
        ReadSource {
            data: floats(&read.input),
            stride: self.stride(&read.input) as usize,
            field: read.field.as_ref().map_or(0, |(k, _)| *k),
            pos: resolve(&read.pos, prepared),
        }
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

    fn instance(n: u64) -> Instance {
        Instance {
            shape: Shape::flat(n),
            dtype: Elem::F32,
        }
    }

    fn floats(p: &Prepared, name: &str) -> Vec<f32> {
        p.input(name).unwrap().as_f32().unwrap().to_vec()
    }

    fn ints(p: &Prepared, name: &str) -> Vec<i32> {
        match p.input(name).unwrap() {
            HostData::I32(v) => v.clone(),
            other => panic!("{:?}", other.elem()),
        }
    }

    /// The reference of every element, as the check computes it.
    fn reference_values(p: &Elementwise, prepared: &Prepared, n: usize) -> Vec<f64> {
        let values = p.values(prepared, n);
        let mut vars = values.scratch();
        (0..n).map(|i| values.at(&mut vars, i)).collect()
    }

    // The elementwise examples of the book (kernels/) draw the same inputs
    // and give the same float64 references, bit for bit, as before index
    // inputs, shifts and structures existed: the old code is the oracle
    // here (each input uniform from its stream, the reference text parsed
    // by exmex as written, scalars rounded to float32), and their tables
    // serialise with the old keys only, so their records' keys hold.
    #[test]
    fn the_books_examples_draw_and_evaluate_as_before() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let kernels = root.join("kernels/vector-add");
        let mut seen = 0;
        for entry in std::fs::read_dir(&kernels).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            if !text.contains("problem = \"elementwise\"") {
                continue;
            }
            seen += 1;
            let rel = format!("vector-add/{}", path.file_name().unwrap().to_string_lossy());
            let ex =
                crate::example::Example::from_file(&root, &root.join("kernels"), &rel, None, None)
                    .unwrap();
            let spec = ex.declaration.elementwise.clone().unwrap();
            let json = serde_json::to_value(&spec).unwrap();
            let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
            assert_eq!(
                keys,
                ["inputs", "output", "reference", "scalars", "tolerance"],
                "{rel}"
            );
            let p = Elementwise::new(spec.clone());
            assert_eq!(p.data_tag(), spec.inputs.join("+"));
            assert_eq!(
                p.bytes(&instance(1000)),
                4 * 1000 * (spec.inputs.len() as u64 + 1)
            );
            for n in [1u64, 1000, 1_000_003] {
                let prepared = p.prepare(&instance(n), 11, Data::Timed);
                let old: Vec<Vec<f32>> = (0..spec.inputs.len())
                    .map(|k| draw::uniform(&draw::generator(11, k as u64, n), n, -1.0, 1.0))
                    .collect();
                for (k, name) in spec.inputs.iter().enumerate() {
                    let new = floats(&prepared, name);
                    assert!(
                        new.iter()
                            .zip(&old[k])
                            .all(|(a, b)| a.to_bits() == b.to_bits())
                    );
                }
                let expr = exmex::parse::<f64>(&spec.reference).unwrap();
                let got = reference_values(&p, &prepared, n as usize);
                for (i, g) in got.iter().enumerate() {
                    let vars: Vec<f64> = expr
                        .var_names()
                        .iter()
                        .map(|v| match spec.inputs.iter().position(|x| x == v) {
                            Some(k) => f64::from(old[k][i]),
                            None => f64::from(spec.scalars[v.as_str()] as f32),
                        })
                        .collect();
                    assert_eq!(
                        g.to_bits(),
                        expr.eval(&vars).unwrap().to_bits(),
                        "{rel} {i}"
                    );
                }
            }
        }
        assert_eq!(seen, 6, "the six vector-add examples");
    }

    const GATHER: &str = "inputs = [\"x\", \"idx\"]\noutput = \"y\"\nreference = \"x[idx[i]]\"\nindices = { idx = \"permutation\" }\n";

    // A gather passes when it reads x[idx[i]] and fails when it reads
    // x[i]: the permutation leaves no element in place, so the identity
    // answer is wrong at every element, not only at most.
    #[test]
    fn a_gather_passes_and_the_identity_fails_everywhere() {
        let p = Elementwise::new(spec(GATHER));
        let n = 1000;
        let prepared = p.prepare(&instance(n), 5, Data::Timed);
        let (x, idx) = (floats(&prepared, "x"), ints(&prepared, "idx"));
        let check = |y: Vec<f32>| {
            p.check(
                &instance(n),
                &prepared,
                &[("y", &HostData::F32(y))],
                Data::Timed,
            )
        };
        let gathered: Vec<f32> = idx.iter().map(|&k| x[k as usize]).collect();
        assert!(check(gathered.clone()).pass);
        assert!(!check(x.clone()).pass, "y = x must not pass for x[idx[i]]");
        assert!(
            gathered.iter().zip(&x).all(|(g, x)| g != x),
            "no fixed point"
        );
        let buffers = p.buffers(&instance(n));
        assert_eq!(buffers[1].elem, Elem::I32);
        assert_eq!(p.bytes(&instance(n)), 12 * n);
        assert_eq!(p.max_size().0, 1 << 31);
        assert_eq!(p.data_tag(), "x+idx+idx:permutation");
        // Uniform positions repeat; the gather still passes, reading x
        // twice where a position repeats does not.
        let u = Elementwise::new(spec(&GATHER.replace("permutation", "uniform")));
        let prepared = u.prepare(&instance(n), 5, Data::Timed);
        let (x, idx) = (floats(&prepared, "x"), ints(&prepared, "idx"));
        let y: Vec<f32> = idx.iter().map(|&k| x[k as usize]).collect();
        let c = u.check(
            &instance(n),
            &prepared,
            &[("y", &HostData::F32(y))],
            Data::Timed,
        );
        assert!(c.pass, "{}", c.detail);
    }

    // Shifted reads at both ends under each boundary.
    #[test]
    fn shifts_follow_their_boundary_at_both_ends() {
        let n = 1000usize;
        for (boundary, last, first) in [
            ("zero", None, None),
            ("clamp", Some(n - 1), Some(0)),
            ("wrap", Some(0), Some(n - 3)),
        ] {
            let text = format!(
                "inputs = [\"x\"]\noutput = \"y\"\nreference = \"x[i + 1] + 2 * x[i - 3]\"\nboundary = \"{boundary}\"\n"
            );
            let p = Elementwise::new(spec(&text));
            let prepared = p.prepare(&instance(n as u64), 9, Data::Timed);
            let x = floats(&prepared, "x");
            let at = |k: Option<usize>| k.map_or(0.0, |k| f64::from(x[k]));
            let r = reference_values(&p, &prepared, n);
            // i = n - 1: x[n] is outside; x[n - 4] is inside.
            assert_eq!(r[n - 1], at(last) + 2.0 * f64::from(x[n - 4]), "{boundary}");
            // i = 0: x[1] inside, x[-3] outside.
            assert_eq!(r[0], f64::from(x[1]) + 2.0 * at(first), "{boundary}");
            assert_eq!(r[500], f64::from(x[501]) + 2.0 * f64::from(x[497]));
            let y: Vec<f32> = r.iter().map(|&v| v as f32).collect();
            assert!(
                p.check(
                    &instance(n as u64),
                    &prepared,
                    &[("y", &HostData::F32(y))],
                    Data::Timed
                )
                .pass
            );
        }
    }

    const AOS: &str = "inputs = [\"p\"]\noutput = \"s\"\nreference = \"p.x + p.z\"\n[structs]\np = [\"x\", \"y\", \"z\", \"w\"]\n";

    // A structure's fields are read at their place in the layout; reading
    // the wrong field fails; only the fields read count as bytes.
    #[test]
    fn structure_fields_are_read_in_layout_order() {
        let p = Elementwise::new(spec(AOS));
        let n = 1000;
        let prepared = p.prepare(&instance(n), 2, Data::Timed);
        let data = floats(&prepared, "p");
        assert_eq!(data.len(), 4000);
        let check = |field: usize| {
            let s: Vec<f32> = data.chunks(4).map(|e| e[0] + e[field]).collect();
            p.check(
                &instance(n),
                &prepared,
                &[("s", &HostData::F32(s))],
                Data::Timed,
            )
        };
        assert!(check(2).pass);
        assert!(!check(1).pass, "p.x + p.y must not pass for p.x + p.z");
        assert_eq!(p.buffers(&instance(n))[0].len, 4 * n);
        assert_eq!(
            p.bytes(&instance(n)),
            4 * n * 3,
            "two fields read, one written"
        );
        // A gathered structure with a shift reads the element the index
        // names, plus one.
        let g = Elementwise::new(spec(
            "inputs = [\"p\", \"idx\"]\noutput = \"s\"\nreference = \"p[idx[i] + 1].w\"\nboundary = \"wrap\"\nindices = { idx = \"uniform\" }\n[structs]\np = [\"x\", \"y\", \"z\", \"w\"]\n",
        ));
        let prepared = g.prepare(&instance(n), 2, Data::Timed);
        let (data, idx) = (floats(&prepared, "p"), ints(&prepared, "idx"));
        let r = reference_values(&g, &prepared, n as usize);
        for i in 0..n as usize {
            let k = (idx[i] as usize + 1) % n as usize;
            assert_eq!(r[i], f64::from(data[4 * k + 3]));
        }
    }

    // Each new key's mistakes are errors at the line of the key to change,
    // with the fix.
    #[test]
    fn new_keys_are_validated_at_their_line() {
        let header = |table: &str| {
            format!(
                "problem = \"elementwise\"\nsizes = [1]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 1\nargs = [\"y\"]\n[elementwise]\n{}",
                table.replace("[structs]", "[elementwise.structs]")
            )
        };
        let cases = [
            (GATHER.replace("x[idx[i]]", "w[idx[i]]"), 11, "`w` is not an input"),
            (GATHER.replace("x[idx[i]]", "idx[x[i]]"), 11, "`x` is not an index input"),
            (GATHER.replace("x[idx[i]]", "x[i + 1]"), 11, "boundary = \"zero\", \"clamp\" or \"wrap\""),
            (format!("{GATHER}boundary = \"zero\"\n"), 13, "remove it"),
            (GATHER.replace("{ idx", "{ ix"), 12, "`ix` in `indices` is not an input"),
            (GATHER.replace("permutation", "permutaton"), 12, "did you mean `permutation`?"),
            (AOS.replace("p.z", "p.q"), 11, "has no field `q`"),
            (AOS.replace("\"w\"]", "\"w\", \"x\"]"), 12, "listed twice"),
            (
                "inputs = [\"x\"]\noutput = \"x\"\nreference = \"x[i + 1]\"\nboundary = \"clamp\"\n".into(),
                10,
                "write a new output",
            ),
        ];
        for (table, line, want) in cases {
            let err = crate::declaration::Declaration::parse(&header(&table)).unwrap_err();
            assert!(err.to_string().contains(want), "{err}");
            assert_eq!(err.line(), Some(line), "{err}");
        }
        // The other spellings of the tables: `structs` inline, `indices`
        // as its own table; errors are at their lines.
        let inline = "inputs = [\"p\"]\noutput = \"s\"\nreference = \"p.x\"\nstructs = { p = [\"x\", \"x\"] }\n";
        let err = crate::declaration::Declaration::parse(&header(inline)).unwrap_err();
        assert_eq!(err.line(), Some(12), "{err}");
        let table = "inputs = [\"x\", \"idx\"]\noutput = \"y\"\nreference = \"x[idx[i]]\"\n[elementwise.indices]\nidy = \"uniform\"\n";
        let err = crate::declaration::Declaration::parse(&header(table)).unwrap_err();
        assert!(
            err.to_string()
                .contains("`idy` in `indices` is not an input"),
            "{err}"
        );
        assert_eq!(err.line(), Some(12), "{err}");
        let good = header(&table.replace("idy", "idx"));
        let decl = crate::declaration::Declaration::parse(&good).unwrap();
        assert_eq!(decl.elementwise.unwrap().indices["idx"], IndexDraw::Uniform);
        for good in [GATHER, AOS] {
            assert!(crate::declaration::Declaration::parse(&header(good)).is_ok());
        }
    }

    // The three examples of src/problems/elementwise.md, as their headers
    // declare them, accept what their kernels compute (each kernel's
    // arithmetic written here in Rust) at the edge sizes, and refuse the
    // answer of the mistake each one is there to catch.
    #[test]
    fn the_problem_pages_examples_accept_their_kernels() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let table = |file: &str| {
            let ex = crate::example::Example::from_file(
                &root,
                &root.join("kernels"),
                &format!("problems/{file}"),
                None,
                None,
            )
            .unwrap();
            Elementwise::new(ex.declaration.elementwise.unwrap())
        };
        type Kernel = fn(&Prepared, usize) -> Vec<f32>;
        let gather: Kernel = |p, _| {
            let (x, idx) = (floats(p, "x"), ints(p, "idx"));
            idx.iter().map(|&k| x[k as usize]).collect()
        };
        let identity: Kernel = |p, _| floats(p, "x");
        let shift: Kernel = |p, n| {
            let x = floats(p, "x");
            (0..n)
                .map(|i| if i + 1 < n { x[i + 1] } else { 0.0 })
                .collect()
        };
        let unshifted: Kernel = |p, _| floats(p, "x");
        let aos: Kernel = |p, _| floats(p, "p").chunks(4).map(|e| e[0] + e[1]).collect();
        let wrong_field: Kernel = |p, _| floats(p, "p").chunks(4).map(|e| e[0] + e[2]).collect();
        for (file, out, right, wrong) in [
            ("gather.cu", "y", gather, identity),
            ("shift.cu", "y", shift, unshifted),
            ("aos_sum.cu", "s", aos, wrong_field),
        ] {
            let p = table(file);
            for shape in p.edge_shapes() {
                let i = Instance {
                    shape,
                    dtype: Elem::F32,
                };
                let n = shape.elements() as usize;
                let prepared = p.prepare(&i, 3, Data::Exact);
                let check = |k: Kernel| {
                    p.check(
                        &i,
                        &prepared,
                        &[(out, &HostData::F32(k(&prepared, n)))],
                        Data::Exact,
                    )
                };
                let c = check(right);
                assert!(c.pass, "{file} at {n}: {}", c.detail);
                if n > 1 {
                    assert!(!check(wrong).pass, "{file} at {n}: the mistake passes");
                }
            }
        }
    }
}
