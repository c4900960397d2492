//! Turns a declaration's launch expressions into concrete launches for one
//! size on one device. Expressions use `n`, `sms`, earlier `gridK`/`blockK`,
//! integer arithmetic, `min`, `max`, `ceil_div(a, b)` and `pow2_floor(a)`
//! (the largest power of two not above `a`), evaluated by [`plan_expr`].

use crate::declaration::{Declaration, Expr};
use crate::dims::Dims;
use crate::example::Example;
use crate::header_lines::HeaderField;
use crate::plan_expr::{self, ExprError, VOCABULARY};
use crate::problem::{Instance, Shape};
use std::collections::BTreeMap;

/// A launch with numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Kernel name.
    pub kernel: String,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory bytes.
    pub shared: u32,
    /// Argument names, as declared.
    pub args: Vec<String>,
    /// A setup launch: run before the timed launches, not timed.
    pub setup: bool,
}

/// A scratch buffer of one size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchBuffer {
    /// Elements.
    pub len: u64,
    /// Element type.
    pub elem: crate::problem::Elem,
    /// How it starts each run.
    pub init: crate::declaration::ScratchInit,
}

impl Launch {
    /// `grid x block, shared B` for the results panel.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} x {}, {} B shared",
            self.kernel, self.grid, self.block, self.shared
        )
    }
}

/// The plan of one size: launches, scratch lengths, byte count, and the
/// scalar variables the launches may pass as arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPlan {
    /// Launches in order.
    pub launches: Vec<Launch>,
    /// Scratch buffers: length in elements, element type, start.
    pub scratch: BTreeMap<String, ScratchBuffer>,
    /// Bytes the declaration says the algorithm moves, when it overrides the
    /// problem's count.
    pub bytes: Option<u64>,
    /// Scalar variables: `n`, `sms`, `grid0`, `block0`, ... and for a
    /// row-wise problem `rows` and `cols`.
    pub scalars: BTreeMap<String, u64>,
    /// The shape and element type of the run.
    pub instance: Instance,
}

/// An expression that cannot be evaluated.
#[derive(Debug, thiserror::Error)]
#[error("`{what} = \"{expr}\"`: {message}")]
pub struct PlanError {
    /// Which field (`launch 0 grid`).
    pub what: String,
    /// Where it is written in the header.
    pub field: PlanField,
    /// The expression.
    pub expr: String,
    /// Why, with the fix.
    pub message: String,
}

/// The header field of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanField {
    /// `grid`, `block` or `shared` of launch K.
    Launch(usize, &'static str),
    /// A scratch buffer's length.
    Scratch(String),
    /// `bytes`.
    Bytes,
    /// `rows`.
    Rows,
}

impl PlanError {
    /// The error with the header line of its expression:
    /// `` `launch 0 grid = "ceil_div(N, 256)"` at kernels/a.cu:6: ... ``.
    pub fn at(&self, example: &Example) -> String {
        let field = match &self.field {
            PlanField::Launch(i, key) => HeaderField::Launch(*i, key),
            PlanField::Scratch(name) => HeaderField::Scratch(name),
            PlanField::Bytes => HeaderField::Top("bytes"),
            PlanField::Rows => HeaderField::Top("rows"),
        };
        format!(
            "`{} = \"{}\"` at {}: {}",
            self.what,
            self.expr,
            example.header_place_of(field),
            self.message
        )
    }
}

/// The shape of `decl`'s run at declared size `size`: one row of `n`, or
/// for a row-wise problem `rows` (evaluated at `n`) rows of `n`, or for a
/// problem of several dimensions the run of their values ([`Shape::of`]).
pub fn shape(decl: &Declaration, size: Dims) -> Result<Shape, PlanError> {
    if !size.is_flat() {
        return Ok(Shape::of(size));
    }
    let n = size.n_value();
    let Some(rows) = &decl.rows else {
        return Ok(Shape::flat(n));
    };
    let vars = BTreeMap::from([("n".to_string(), n)]);
    let m = eval(rows, &vars, PlanField::Rows)?;
    if m == 0 {
        return Err(PlanError {
            what: PlanField::Rows.what(),
            field: PlanField::Rows,
            expr: rows.as_text(),
            message: format!("evaluates to 0 at n = {n}: a run needs at least one row"),
        });
    }
    if m.checked_mul(n).is_none_or(|e| e > u64::from(u32::MAX)) {
        return Err(PlanError {
            what: PlanField::Rows.what(),
            field: PlanField::Rows,
            expr: rows.as_text(),
            message: format!(
                "gives {m} rows of {n}, more than 2^32 - 1 elements, which kernels cannot index with unsigned ints"
            ),
        });
    }
    Ok(Shape::rows(m, n))
}

/// Resolves `decl` for declared size `n` of a problem of one dimension on
/// a device with `sms` multiprocessors.
pub fn resolve(decl: &Declaration, n: u64, sms: u32) -> Result<ResolvedPlan, PlanError> {
    resolve_size(decl, Dims::n(n), sms)
}

/// Resolves `decl` for declared size `size` (of any dimensions) on a
/// device with `sms` multiprocessors.
pub fn resolve_size(decl: &Declaration, size: Dims, sms: u32) -> Result<ResolvedPlan, PlanError> {
    resolve_shape(decl, shape(decl, size)?, sms)
}

/// Resolves `decl` for a run of `shape` (an edge shape, or the shape of a
/// declared size).
pub fn resolve_shape(
    decl: &Declaration,
    shape: Shape,
    sms: u32,
) -> Result<ResolvedPlan, PlanError> {
    let mut scalars = BTreeMap::new();
    match shape.dims {
        Some(dims) => scalars.extend(dims.variables()),
        None => {
            scalars.insert("n".to_string(), shape.cols);
        }
    }
    if decl.rows.is_some() {
        scalars.insert("rows".to_string(), shape.rows);
        scalars.insert("cols".to_string(), shape.cols);
    }
    scalars.insert("sms".to_string(), u64::from(sms));
    // One value of a sweep is a variable of the plan by its own name.
    if let Some(v) = decl.chosen() {
        scalars.insert(v.name, v.value);
    }
    let mut launches = Vec::new();
    for (i, spec) in decl.launches.iter().enumerate() {
        let grid = eval_u32(&spec.grid, &scalars, i, "grid")?;
        let block = eval_u32(&spec.block, &scalars, i, "block")?;
        if grid == 0 || block == 0 {
            let (key, expr) = if grid == 0 {
                ("grid", &spec.grid)
            } else {
                ("block", &spec.block)
            };
            let field = PlanField::Launch(i, key);
            return Err(PlanError {
                what: field.what(),
                field,
                expr: expr.as_text(),
                message: "evaluates to 0: a launch needs at least one block of one thread".into(),
            });
        }
        scalars.insert(format!("grid{i}"), u64::from(grid));
        scalars.insert(format!("block{i}"), u64::from(block));
        let shared = eval(&spec.shared, &scalars, PlanField::Launch(i, "shared"))?;
        let shared = u32::try_from(shared).map_err(|_| too_large(&spec.shared, i, "shared"))?;
        launches.push(Launch {
            kernel: spec.kernel.clone(),
            grid,
            block,
            shared,
            args: spec.args.clone(),
            setup: spec.setup,
        });
    }
    let mut scratch = BTreeMap::new();
    for (name, spec) in &decl.scratch {
        scratch.insert(
            name.clone(),
            ScratchBuffer {
                len: eval(spec.len(), &scalars, PlanField::Scratch(name.clone()))?,
                elem: spec.elem(),
                init: spec.init(),
            },
        );
    }
    let bytes = decl
        .bytes
        .as_ref()
        .map(|e| eval(e, &scalars, PlanField::Bytes))
        .transpose()?;
    Ok(ResolvedPlan {
        launches,
        scratch,
        bytes,
        scalars,
        instance: Instance {
            shape,
            dtype: decl.elem(),
        },
    })
}

impl PlanField {
    /// `launch 0 grid`, `scratch partials`, `bytes`.
    fn what(&self) -> String {
        match self {
            PlanField::Launch(i, key) => format!("launch {i} {key}"),
            PlanField::Scratch(name) => format!("scratch {name}"),
            PlanField::Bytes => "bytes".into(),
            PlanField::Rows => "rows".into(),
        }
    }
}

fn too_large(expr: &Expr, i: usize, key: &'static str) -> PlanError {
    let field = PlanField::Launch(i, key);
    PlanError {
        what: field.what(),
        field,
        expr: expr.as_text(),
        message: "is larger than a 32-bit launch parameter allows".into(),
    }
}

fn eval_u32(
    expr: &Expr,
    vars: &BTreeMap<String, u64>,
    i: usize,
    key: &'static str,
) -> Result<u32, PlanError> {
    let field = PlanField::Launch(i, key);
    let v = eval(expr, vars, field.clone())?;
    u32::try_from(v).map_err(|_| PlanError {
        what: field.what(),
        field,
        expr: expr.as_text(),
        message: format!("evaluates to {v}, more than a launch dimension can hold"),
    })
}

fn eval(expr: &Expr, vars: &BTreeMap<String, u64>, field: PlanField) -> Result<u64, PlanError> {
    let text = match expr {
        Expr::Int(v) => return Ok(*v),
        Expr::Text(t) => t,
    };
    let fail = |message: String| PlanError {
        what: field.what(),
        field: field.clone(),
        expr: text.clone(),
        message,
    };
    if vars.values().any(|v| i64::try_from(*v).is_err()) {
        return Err(fail("a variable is out of range".into()));
    }
    let value = plan_expr::eval(text, |v| vars.get(v).map(|v| *v as i64)).map_err(|e| {
        let known = variables_in_order(vars).join(", ");
        fail(match e {
            ExprError::UnknownVariable(name) => format!(
                "unknown variable `{name}`: the variables here are {known}; expressions also use {VOCABULARY}"
            ),
            ExprError::UnknownFunction(name) => format!(
                "unknown function `{name}`: expressions use {known}, {VOCABULARY}"
            ),
            ExprError::Other(e) => format!("{e}; expressions use {known}, {VOCABULARY}"),
        })
    })?;
    u64::try_from(value).map_err(|_| fail(format!("evaluates to {value}, which is negative")))
}

/// The scalar variables of `vars` in the order authors meet them: `n`
/// (or a problem's own dimensions, `rows`, `cols`, ...), `sms`, then
/// `grid0`, `block0`, `grid1`, ... as far as defined.
pub fn variables_in_order(vars: &BTreeMap<String, u64>) -> Vec<String> {
    let launch_var = |k: &str| {
        ["grid", "block"].iter().any(|p| {
            k.strip_prefix(p)
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    let mut names: Vec<String> = ["n", "rows", "cols"]
        .into_iter()
        .filter(|v| vars.contains_key(*v))
        .map(String::from)
        .collect();
    names.extend(
        vars.keys()
            .filter(|k| !["n", "rows", "cols", "sms"].contains(&k.as_str()) && !launch_var(k))
            .cloned(),
    );
    names.extend(vars.contains_key("sms").then(|| "sms".to_string()));
    for k in 0.. {
        let launch: Vec<String> = [format!("grid{k}"), format!("block{k}")]
            .into_iter()
            .filter(|v| vars.contains_key(v))
            .collect();
        if launch.is_empty() {
            break;
        }
        names.extend(launch);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::Declaration;

    fn decl(grid: &str) -> Declaration {
        Declaration::parse(&format!(
            "problem = \"sum_f32\"\nsizes = [1]\n[scratch]\npartials = \"grid0\"\n[[launch]]\nkernel = \"a\"\ngrid = \"{grid}\"\nblock = 256\nshared = \"block0 * 4\"\nargs = [\"input\"]\n[[launch]]\nkernel = \"b\"\ngrid = 1\nblock = 1024\nargs = [\"partials\", \"out\", \"grid0\"]\n"
        ))
        .unwrap()
    }

    // Grids follow n and the device's SM count; later launches see earlier grids.
    #[test]
    fn grid_depends_on_n_and_sms() {
        let d = decl("min(ceil_div(n, 256), sms * 4)");
        let small = resolve(&d, 1000, 132).unwrap();
        assert_eq!(small.launches[0].grid, 4);
        assert_eq!(small.launches[0].shared, 1024);
        let big = resolve(&d, 1 << 28, 132).unwrap();
        assert_eq!(big.launches[0].grid, 528);
        assert_eq!(big.scratch["partials"].len, 528);
        assert_eq!(big.scalars["grid0"], 528);
    }

    // A grid can be the largest power of two that fits the device, so that
    // power-of-two inputs split into equal shares.
    #[test]
    fn pow2_floor_rounds_down_to_a_power_of_two() {
        let d = decl("min(ceil_div(n, 4096), pow2_floor(sms * 2))");
        assert_eq!(resolve(&d, 1 << 30, 132).unwrap().launches[0].grid, 256);
        assert_eq!(resolve(&d, 1 << 30, 128).unwrap().launches[0].grid, 256);
        assert_eq!(resolve(&d, 1 << 16, 132).unwrap().launches[0].grid, 16);
        assert!(resolve(&decl("pow2_floor(n - n)"), 10, 132).is_err());
    }

    // A typo in an expression names the field and lists what is allowed.
    #[test]
    fn bad_expression_names_field_and_vocabulary() {
        let err = resolve(&decl("ceil_div(n, blocks)"), 10, 132)
            .unwrap_err()
            .to_string();
        assert!(err.contains("launch 0 grid"), "{err}");
        assert!(err.contains("ceil_div(a, b)"), "{err}");
    }

    // Errors in scratch lengths and `bytes` name their own header lines.
    #[test]
    fn scratch_and_bytes_errors_name_their_lines() {
        let body = "/*+++\nproblem = \"sum_f32\"\nsizes = [1]\nbytes = \"4 * m\"\n[scratch]\npartials = \"grid9\"\n[[launch]]\nkernel = \"a\"\ngrid = 1\nblock = 32\nargs = [\"partials\"]\n+++*/\n";
        let dir = std::env::temp_dir();
        let ex = Example::from_inline(&dir, "src/ch.md", &dir, body, 10, "demo").unwrap();
        let err = resolve(&ex.declaration, 10, 132).unwrap_err().at(&ex);
        assert!(
            err.starts_with("`scratch partials = \"grid9\"` at src/ch.md:15: unknown variable `grid9`: the variables here are n, sms, grid0, block0;"),
            "{err}"
        );
        let mut decl = ex.declaration.clone();
        decl.scratch.clear();
        let err = resolve(&decl, 10, 132).unwrap_err().at(&ex);
        assert!(
            err.starts_with("`bytes = \"4 * m\"` at src/ch.md:13: unknown variable `m`"),
            "{err}"
        );
    }

    // An empty grid is refused before it reaches the driver.
    #[test]
    fn zero_grid_is_refused() {
        let err = resolve(&decl("n / 1024"), 10, 132).unwrap_err().to_string();
        assert!(err.contains("evaluates to 0"), "{err}");
    }

    // Each dimension of a problem of several is a launch variable under
    // its lowercase name, and `n` is not one of them; the run is one row
    // of their product, with the values in its shape.
    #[test]
    fn dimensions_are_launch_variables() {
        let d = Declaration::parse(
            "problem = \"transpose\"\nsizes = [\"100x4099\"]\n[scratch]\ntiles = \"ceil_div(cols, 32) * ceil_div(rows, 32)\"\n[[launch]]\nkernel = \"t\"\ngrid = \"ceil_div(cols, 32) * ceil_div(rows, 32)\"\nblock = 256\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\n",
        )
        .unwrap();
        let plan = resolve_size(&d, d.sizes[0], 132).unwrap();
        assert_eq!(plan.launches[0].grid, 129 * 4);
        assert_eq!(plan.scratch["tiles"].len, 129 * 4);
        assert_eq!((plan.scalars["rows"], plan.scalars["cols"]), (100, 4099));
        assert!(!plan.scalars.contains_key("n"));
        assert_eq!(plan.instance.shape.elements(), 409_900);
        assert_eq!(plan.instance.shape.dim("cols"), 4099);
        let mut bad = d.clone();
        bad.launches[0].grid = Expr::Text("ceil_div(n, 256)".into());
        let err = resolve_size(&bad, d.sizes[0], 132).unwrap_err().to_string();
        assert!(
            err.contains("unknown variable `n`: the variables here are rows, cols, sms"),
            "{err}"
        );
    }
}

/// Every launch plan of every example in `kernels/`, and a set of
/// expressions that exercise the language, evaluated and written one per
/// line: the record the expression evaluator is held to
/// (`testdata/launch_plans.txt`, written by evalexpr before the port to
/// exmex, [`crate::plan_expr`]).
#[cfg(test)]
mod every_plan {
    use super::*;
    use std::fmt::Write;
    use std::path::Path;

    const SIZES: &[u64] = &[
        1,
        7,
        1000,
        1_000_003,
        1 << 16,
        1 << 20,
        (1 << 24) + 5,
        1 << 26,
        1 << 28,
        1 << 30,
        1 << 31,
    ];
    const SMS: &[u32] = &[1, 78, 132];

    /// Expressions beyond the examples': precedence, integer division and
    /// remainder, unary minus, nesting, and the errors.
    const EXPRESSIONS: &[&str] = &[
        "7 / 2",
        "n / 3",
        "n % 7",
        "2 + 3 * 4",
        "(2 + 3) * 4",
        "10 - 3 - 2",
        "100 / 10 / 2",
        "2 * 3 % 4",
        "7 * 5 / 2",
        "20 / 2 * 5",
        "10 - 4 + 3",
        "10 + 4 - 3 * 2 / 4 % 3",
        "n / 256 * 256 + n % 256",
        "-n * 2 + 3000",
        "2 - -3 * 2",
        "(n)",
        "((n + 1) * (sms - 1)) / 7",
        "min(n, 5) + max(2, n) * 2",
        "ceil_div(n, 256) * 256 / 4",
        "n ^ 2",
        "n == 2",
        "-3 + n",
        "n - -2",
        "min(3, max(1, 2))",
        "max(n, sms) - min(n, sms)",
        "ceil_div(n, 3)",
        "ceil_div(n + 255, 256) * 256",
        "pow2_floor(n)",
        "pow2_floor(sms * 2) * 4",
        "min(ceil_div(n, 4096), pow2_floor(sms * 2))",
        "n - 2 * n",
        "n / 0",
        "n % 0",
        "ceil_div(n, 0)",
        "pow2_floor(0)",
        "n * n * n",
        "blocks * 2",
        "foo(n)",
        "n +",
        "2.5 * n",
        "",
    ];

    fn render(plan: &Result<ResolvedPlan, PlanError>) -> String {
        match plan {
            Err(e) => format!("error: {e}"),
            Ok(p) => {
                let launches: Vec<String> = p
                    .launches
                    .iter()
                    .map(|l| format!("{}({})", l.describe(), l.args.join(",")))
                    .collect();
                format!(
                    "{} | scratch {:?} | bytes {:?} | scalars {:?} | shape {}x{}",
                    launches.join("; "),
                    // Lengths, as the record was written before scratch
                    // had element types and starts.
                    p.scratch
                        .iter()
                        .map(|(name, b)| (name.as_str(), b.len))
                        .collect::<std::collections::BTreeMap<_, _>>(),
                    p.bytes,
                    p.scalars,
                    p.instance.shape.rows,
                    p.instance.shape.cols
                )
            }
        }
    }

    fn examples(dir: &Path, kernels: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                examples(&path, kernels, out);
            } else if path.extension().is_some_and(|e| e == "cu")
                && std::fs::read_to_string(&path)
                    .unwrap()
                    .contains(crate::source::HEADER_OPEN)
            {
                let rel = path.strip_prefix(kernels).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    fn record() -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let kernels = root.join("kernels");
        let mut files = Vec::new();
        examples(&kernels, &kernels, &mut files);
        let mut text = String::new();
        for rel in &files {
            let ex = match Example::from_file(&root, &kernels, rel, None, None) {
                Ok(ex) => ex,
                Err(e) => {
                    writeln!(text, "{rel}: not an example: {}", e.message).unwrap();
                    continue;
                }
            };
            for &n in SIZES {
                for &sms in SMS {
                    let plan = resolve(&ex.declaration, n, sms);
                    writeln!(text, "{rel} n={n} sms={sms}: {}", render(&plan)).unwrap();
                }
            }
        }
        for e in EXPRESSIONS {
            for &n in &[0u64, 1, 1000, 1 << 31, 1 << 40] {
                let vars = BTreeMap::from([("n".to_string(), n), ("sms".to_string(), 132)]);
                let got = match eval(&Expr::Text(e.to_string()), &vars, PlanField::Bytes) {
                    Ok(v) => v.to_string(),
                    Err(err) => format!("error: {}", err.message),
                };
                writeln!(text, "`{e}` n={n}: {got}").unwrap();
            }
        }
        text
    }

    // Every example's plan at every size and SM count, and every listed
    // expression, evaluates as recorded: the values are those evalexpr
    // gave before the port to exmex (errors may be worded otherwise, but
    // an expression that failed still fails and one that passed gives the
    // same number). Examples added since are not in the record.
    // `BLESS_PLANS=1` rewrites the record.
    #[test]
    fn every_plan_evaluates_as_recorded() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testdata/launch_plans.txt");
        let got = record();
        if std::env::var_os("BLESS_PLANS").is_some() {
            std::fs::write(&path, &got).unwrap();
        }
        let want = std::fs::read_to_string(&path).unwrap();
        // Each line as (what was evaluated, its value), an error's words
        // dropped.
        let values = |t: &str| -> BTreeMap<String, String> {
            t.lines()
                .map(|l| {
                    let (what, value) = l.split_once(": ").unwrap_or((l, ""));
                    let value = if value.starts_with("error") {
                        "error"
                    } else {
                        value
                    };
                    (what.to_string(), value.to_string())
                })
                .collect()
        };
        let (got_v, want_v) = (values(&got), values(&want));
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
        let mut compared = 0;
        for (what, value) in &want_v {
            // Examples added since are not in the record; an example
            // removed since is not evaluated.
            let file = what.split(' ').next().unwrap_or_default();
            if !what.starts_with('`') && !root.join(file).exists() {
                continue;
            }
            assert_eq!(got_v.get(what), Some(value), "{what}");
            compared += 1;
        }
        assert!(compared > 1500, "{compared} lines compared");
    }
}
