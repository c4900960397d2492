//! The starting file of a new example, written by `cuda-runner new
//! CHAPTER/NAME --problem P`: a declaration header for the problem (its
//! buffers, from [`problem::lookup`], become the launch's `args`) and a
//! minimal kernel that is correct at every size, for the author to make
//! fast. Then what to paste into the chapter, and what to run next.

use crate::problem::{self, BufferRole};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Sizes a new example is timed at, from the small (launch-bound) to the
/// large (bandwidth-bound); the author edits them.
const SIZES: [&str; 3] = ["2^20", "2^24", "2^28"];

/// The `[elementwise]` table a new `elementwise` example starts with.
const ELEMENTWISE_TABLE: &str =
    "inputs = [\"x\"]\nscalars = { a = 2.0 }\noutput = \"y\"\nreference = \"a * x\"\n";

/// Row lengths a new example of a row-wise problem is timed at.
const ROW_SIZES: [&str; 3] = ["2^10", "2^14", "2^18"];

/// The sizes a new matmul example starts with.
const MATMUL_SIZES: [&str; 2] = ["M = N = K = 1024", "M = N = K = 2048"];

/// The sizes a new pointer chase starts with: L1 and L2 on an H200.
const CHASE_SIZES: [&str; 2] = [
    "footprint = 16KiB, stride = 128",
    "footprint = 4MiB, stride = 128",
];

/// A new `transfer` example: its whole declaration, no kernel.
const TRANSFER_TEXT: &str = "/*+++
# The declaration of this example; AUTHORING.md §3 says what each key means.
problem = \"transfer\"
sizes = [\"1MiB\", \"64MiB\"]   # bytes

[transfer]
direction = \"h2d\"   # or \"d2h\"
host = \"pinned\"     # or \"pageable\"
+++*/

// No kernel: the runner times one cuMemcpy of each size's bytes with the
// event timer the kernels use and checks the copy byte for byte.
";

/// Threads per block of the starting launch.
const BLOCK: u32 = 256;

/// A new example, ready to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewExample {
    /// Its path under `kernels/`: `reductions/my_sum.cu`.
    pub file: String,
    /// The kernel it defines and launches: `my_sum`.
    pub kernel: String,
    /// The problem it solves.
    pub problem: String,
    /// The whole file.
    pub text: String,
}

/// Why a new example cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The target is not `CHAPTER/NAME` of plain names.
    #[error(
        "`{0}` is not CHAPTER/NAME: give the chapter's folder under kernels/ and the example's name, each of letters, digits, `_` and `-` (e.g. `reductions/my_sum`)"
    )]
    Target(String),
    /// No problem of that name.
    #[error("unknown problem `{name}`: this runner knows {known}")]
    UnknownProblem {
        /// The name given.
        name: String,
        /// The problems there are.
        known: String,
    },
    /// A problem without a starting kernel here.
    #[error(
        "problem `{0}` has no starting kernel yet: add one to starting_kernel in runner/core/src/template.rs"
    )]
    NoTemplate(String),
    /// The file is there already.
    #[error("{0} already exists: nothing was written; choose another NAME, or edit that file")]
    Exists(String),
    /// The file could not be written.
    #[error("cannot write {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        reason: String,
    },
}

/// The file of a new example `target` (`CHAPTER/NAME`, `.cu` optional)
/// solving `problem`.
pub fn new_example(target: &str, problem_name: &str) -> Result<NewExample, TemplateError> {
    let stem = target.strip_suffix(".cu").unwrap_or(target);
    let parts: Vec<&str> = stem.split('/').collect();
    let plain = |p: &&str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if parts.len() < 2 || !parts.iter().all(plain) {
        return Err(TemplateError::Target(target.to_string()));
    }
    let name = parts[parts.len() - 1];
    if problem_name == problem::TRANSFER {
        return Ok(NewExample {
            file: format!("{stem}.cu"),
            kernel: String::new(),
            problem: problem::TRANSFER.to_string(),
            text: TRANSFER_TEXT.to_string(),
        });
    }
    let problem = if problem_name == problem::ELEMENTWISE {
        problem::ProblemRef::Declared(Box::new(problem::Elementwise::new(
            toml::from_str(ELEMENTWISE_TABLE).expect("the starting table parses"),
        )))
    } else {
        problem::ProblemRef::Registered(problem::lookup(problem_name).ok_or_else(|| {
            TemplateError::UnknownProblem {
                name: problem_name.to_string(),
                known: problem::names().join(", "),
            }
        })?)
    };
    let kernel = kernel_name(name);
    let dtype = problem.dtypes()[0];
    // The buffers' names do not depend on the shape.
    let buffers = problem.buffers(&problem::Instance {
        shape: problem::Shape::flat(1),
        dtype,
    });
    let rowwise = problem.rowwise();
    let sizes_of: Vec<(String, String)> = buffers
        .iter()
        .map(|b| {
            let c_type = b.elem.c_type();
            match b.role {
                BufferRole::Input => (format!("const {c_type}* {}", b.name), b.name.to_string()),
                BufferRole::Output(_) | BufferRole::InOut => {
                    (format!("{c_type}* {}", b.name), b.name.to_string())
                }
            }
        })
        .chain(
            problem
                .scalars()
                .into_iter()
                .map(|(name, v)| (format!("{} {name}", v.kind().c_type()), name.to_string())),
        )
        .collect();
    let dims = problem.dims();
    let variables: Vec<String> = if rowwise {
        vec!["rows".into(), "cols".into()]
    } else {
        dims.iter().map(|d| d.variable()).collect()
    };
    let params: Vec<String> = sizes_of
        .iter()
        .map(|(p, _)| p.clone())
        .chain(variables.iter().map(|v| format!("unsigned int {v}")))
        .collect();
    let args: Vec<String> = sizes_of
        .iter()
        .map(|(_, a)| format!("\"{a}\""))
        .chain(variables.iter().map(|v| format!("\"{v}\"")))
        .collect();
    let body = starting_kernel(problem.name(), &buffers)
        .ok_or_else(|| TemplateError::NoTemplate(problem.name().to_string()))?;
    let mut block = BLOCK;
    let owned = |sizes: &[&str]| sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (sizes, shape_lines, grid): (Vec<String>, String, String) = if problem.name()
        == "matmul_f32"
    {
        (
            owned(&MATMUL_SIZES),
            "# Each size names M, N and K (A is M x K, B is K x N, C is M x N).\n".into(),
            format!("ceil_div(m * n, {BLOCK})"),
        )
    } else if problem.name() == "pointer_chase" {
        block = 1;
        (
            owned(&CHASE_SIZES),
            "# Each size names the footprint the cycle spans and the stride between its slots.\n"
                .into(),
            "1".to_string(),
        )
    } else if dims != crate::dims::N {
        let names: Vec<&str> = dims.iter().map(|d| d.name).collect();
        (
            DIM_SIZES
                .iter()
                .map(|v| vec![v.to_string(); dims.len()].join("x"))
                .collect(),
            format!(
                "# Each size gives {} in this order (\"{}\"), or by name\n# (\"{}\"); AUTHORING.md §2.\n",
                names.join(" x "),
                vec!["1024"; dims.len()].join("x"),
                names
                    .iter()
                    .map(|n| format!("{n} = 1024"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!("ceil_div({}, {BLOCK})", variables.join(" * ")),
        )
    } else if rowwise {
        (
            ROW_SIZES.iter().map(|s| s.to_string()).collect(),
            "# Each size is the row length n; `rows` gives the number of rows, here\n# 2^26 elements in all at every size.\nrows = \"67108864 / n\"\n".into(),
            format!("ceil_div(rows, {BLOCK})"),
        )
    } else {
        (
            body.sizes
                .unwrap_or(&SIZES)
                .iter()
                .map(|s| s.to_string())
                .collect(),
            String::new(),
            format!("min(ceil_div(n, {BLOCK}), sms * 8)"),
        )
    };
    let grid = body.grid.map_or(grid, str::to_string);
    let sizes: Vec<String> = sizes.iter().map(|s| format!("\"{s}\"")).collect();
    let text = format!(
        "/*+++
# The declaration of this example; AUTHORING.md says what each key means.
problem = \"{problem}\"
{shape_lines}sizes = [{sizes}]

[[launch]]
kernel = \"{kernel}\"
grid = \"{grid}\"
block = {block}
args = [{args}]
{table}+++*/

{comment}extern \"C\" __global__ void {kernel}({params}) {{
{body}}}
",
        problem = problem.name(),
        table = if problem.name() == problem::ELEMENTWISE {
            format!(
                "\n# Each element of y is a * x of the same index; see AUTHORING.md §3.\n[elementwise]\n{ELEMENTWISE_TABLE}"
            )
        } else {
            String::new()
        },
        sizes = sizes.join(", "),
        args = args.join(", "),
        comment = body.comment,
        params = params.join(", "),
        body = body.code,
    );
    Ok(NewExample {
        file: format!("{stem}.cu"),
        kernel,
        problem: problem.name().to_string(),
        text,
    })
}

/// Writes `example` under `kernels_dir`, creating its chapter's folder;
/// refuses to overwrite a file that is there. Returns the path written.
pub fn write(kernels_dir: &Path, example: &NewExample) -> Result<PathBuf, TemplateError> {
    let path = kernels_dir.join(&example.file);
    let shown = path.display().to_string();
    let io = |e: std::io::Error| TemplateError::Io {
        path: shown.clone(),
        reason: e.to_string(),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => TemplateError::Exists(shown.clone()),
            _ => io(e),
        })?;
    file.write_all(example.text.as_bytes()).map_err(io)?;
    Ok(path)
}

/// What to paste into the chapter, and what to run next.
pub fn next_steps(example: &NewExample) -> String {
    let chapter = example
        .file
        .rsplit_once('/')
        .map_or("CHAPTER", |(dir, _)| dir);
    format!(
        "Show it in its chapter (src/{chapter}.md, say) with an empty block:

```cuda run file={file}
```

Then:
  mdbook-cuda check       compile it with NVRTC, no GPU needed
  scripts/serve           preview it; its panel says it is not measured yet
  scripts/test --author   every check, accepting examples not measured yet
  scripts/book            on a GPU machine: measure it, then commit results/
",
        file = example.file
    )
}

/// A kernel name from an example's name: `-` becomes `_`, and a leading
/// digit gets a `k_` before it.
fn kernel_name(name: &str) -> String {
    let name = name.replace('-', "_");
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("k_{name}")
    } else {
        name
    }
}

/// A starting kernel: the comment above it and the code of its body, and
/// the grid and sizes where the problem's defaults do not suit it.
struct Body {
    comment: String,
    code: String,
    grid: Option<&'static str>,
    sizes: Option<&'static [&'static str]>,
}

/// Each dimension's value at the sizes of a new example of a problem of
/// several dimensions (`1024x1024`, ...).
const DIM_SIZES: [u64; 3] = [1024, 4096, 8192];

/// Sizes of a new scan example: its starting kernel is one block.
const SCAN_SIZES: [&str; 3] = ["2^16", "2^20", "2^24"];

/// The starting kernel of a problem, over its buffers, or `None` for a
/// problem that has none yet.
fn starting_kernel(problem: &str, buffers: &[problem::BufferSpec]) -> Option<Body> {
    let named = |input: bool| {
        buffers
            .iter()
            .find(|b| matches!(b.role, BufferRole::Input) == input)
            .map(|b| b.name)
    };
    match problem {
        "sum_f32" => {
            let (input, out) = (named(true)?, named(false)?);
            Some(Body {
                comment: "// A starting point, correct at every size: each thread sums a strided
// slice of the input (a grid-stride loop), then adds its partial sum into
// the total with one atomicAdd. The problem sets the total to 0 before
// every run.
"
                .into(),
                code: format!(
                    "    float partial = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {{
        partial += {input}[i];
    }}
    atomicAdd({out}, partial);
"
                ),
                grid: None,
                sizes: None,
            })
        }
        "elementwise" => Some(Body {
            comment: "// A starting point, correct at every size: a grid-stride loop, one
// element per thread per trip.
"
            .into(),
            code: "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        y[i] = a * x[i];
    }
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "softmax_rows" => Some(Body {
            comment: "// A starting point, correct at every shape: one thread per row, three
// passes over its row (the maximum, the sum of exponentials, the output).
"
            .into(),
            code: "    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = x + (size_t)r * cols;
    float m = -3.402823466e38f;  // the lowest float: NVRTC has no <math.h> INFINITY
    for (unsigned int j = 0; j < cols; ++j) m = fmaxf(m, in[j]);
    float s = 0.0f;
    for (unsigned int j = 0; j < cols; ++j) s += expf(in[j] - m);
    for (unsigned int j = 0; j < cols; ++j) y[(size_t)r * cols + j] = expf(in[j] - m) / s;
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "layernorm_rows" => Some(Body {
            comment: "// A starting point, correct at every shape: one thread per row, the mean,
// then the variance around it (two passes, no cancellation), then the output.
"
            .into(),
            code: "    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = x + (size_t)r * cols;
    float mean = 0.0f;
    for (unsigned int j = 0; j < cols; ++j) mean += in[j];
    mean /= cols;
    float var = 0.0f;
    for (unsigned int j = 0; j < cols; ++j) var += (in[j] - mean) * (in[j] - mean);
    float rstd = rsqrtf(var / cols + eps);
    for (unsigned int j = 0; j < cols; ++j)
        y[(size_t)r * cols + j] = (in[j] - mean) * rstd * weight[j] + bias[j];
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "transpose" => Some(Body {
            comment: "// A starting point, correct at every shape: one thread per element of x,
// which it reads in order (coalesced) and writes to its transposed place
// (strided: the writes are what a shared-memory tile makes fast).
"
            .into(),
            code: "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    unsigned int r = i / cols, c = i % cols;
    y[(size_t)c * rows + r] = x[i];
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "histogram_u8" | "histogram_u8_skewed" => Some(Body {
            comment: "// A starting point, correct at every size: a grid-stride loop, one atomic
// add into the global bin of every byte. The problem sets the bins to 0
// before every run.
"
            .into(),
            code: "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        atomicAdd(&bins[x[i]], 1u);
    }
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "scan_f32" => Some(Body {
            comment: "// A starting point, correct at every size: one block of 256 threads walks
// the input 256 elements at a time, scans each tile in shared memory
// (Hillis-Steele: log2(256) steps) and adds the running total of the tiles
// before it.
"
            .into(),
            code: "    __shared__ float tile[256];
    float carry = 0.0f;
    for (unsigned int base = 0; base < n; base += 256) {
        unsigned int i = base + threadIdx.x;
        tile[threadIdx.x] = i < n ? x[i] : 0.0f;
        __syncthreads();
        for (unsigned int d = 1; d < 256; d *= 2) {
            float t = threadIdx.x >= d ? tile[threadIdx.x - d] : 0.0f;
            __syncthreads();
            tile[threadIdx.x] += t;
            __syncthreads();
        }
        if (i < n) y[i] = carry + tile[threadIdx.x];
        carry += tile[255];
        __syncthreads();
    }
"
            .into(),
            grid: Some("1"),
            sizes: Some(&SCAN_SIZES),
        }),
        "matmul_f32" => Some(Body {
            comment: "// A starting point, correct at every shape: one thread per element of C,
// a plain dot product of a row of A and a column of B.
"
            .into(),
            code: "    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= m * n) return;
    unsigned int i = idx / n, j = idx % n;
    float acc = 0.0f;
    for (unsigned int p = 0; p < k; ++p) acc += a[(size_t)i * k + p] * b[(size_t)p * n + j];
    c[(size_t)i * n + j] = acc;
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "pointer_chase" => Some(Body {
            comment: "// A starting point: one thread follows the cycle, each load's address the
// value the previous load returned.
"
            .into(),
            code: "    int i = 0;
    for (unsigned int s = 0; s < steps; ++s) i = next[i];
    *out = i;
"
            .into(),
            grid: None,
            sizes: None,
        }),
        "fma_f32" => Some(Body {
            comment: "// A starting point, correct at every size: one thread per element, one
// chain of `steps` dependent multiply-adds (one chain a thread leaves the
// FMA units waiting; The machine, measured gives each thread several).
"
            .into(),
            code: "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (unsigned int s = 0; s < steps; ++s) v = fmaf(v, a, b);
    y[i] = v;
"
            .into(),
            grid: None,
            sizes: None,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::Example;

    /// The kernels a source defines: the names of its
    /// `extern "C" __global__ void NAME(` lines.
    fn defined_kernels(text: &str) -> Vec<String> {
        let mark = "extern \"C\" __global__ void ";
        text.match_indices(mark)
            .filter_map(|(at, _)| {
                let rest = &text[at + mark.len()..];
                rest.find('(').map(|end| rest[..end].trim().to_string())
            })
            .collect()
    }

    // The written file resolves as an example of its problem, and declares
    // exactly the kernel it defines, with as many arguments as parameters.
    #[test]
    fn the_new_file_resolves_and_declares_its_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        std::fs::create_dir(&kernels).unwrap();
        let new = new_example("reductions/my-sum", "sum_f32").unwrap();
        assert_eq!(new.file, "reductions/my-sum.cu");
        assert_eq!(new.kernel, "my_sum");
        let path = write(&kernels, &new).unwrap();
        assert_eq!(path, kernels.join("reductions/my-sum.cu"));
        let example = Example::from_file(dir.path(), &kernels, &new.file, None, None).unwrap();
        assert_eq!(example.id, "reductions/my-sum");
        let d = &example.declaration;
        assert_eq!(d.problem, "sum_f32");
        assert_eq!(d.sizes.len(), SIZES.len());
        let declared: Vec<&str> = d.launches.iter().map(|l| l.kernel.as_str()).collect();
        assert_eq!(declared, ["my_sum"]);
        assert_eq!(defined_kernels(&new.text), ["my_sum"]);
        assert_eq!(d.launches[0].args, ["input", "out", "n"]);
        let signature = new
            .text
            .split("void my_sum(")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .unwrap();
        assert_eq!(signature, "const float* input, float* out, unsigned int n");
        assert!(new.text.contains("atomicAdd(out, partial);"));
    }

    // A file that is there is never overwritten.
    #[test]
    fn an_existing_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let new = new_example("ch/a", "sum_f32").unwrap();
        write(dir.path(), &new).unwrap();
        std::fs::write(dir.path().join("ch/a.cu"), "mine").unwrap();
        let err = write(dir.path(), &new).unwrap_err().to_string();
        assert!(err.ends_with("ch/a.cu already exists: nothing was written; choose another NAME, or edit that file"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("ch/a.cu")).unwrap(),
            "mine"
        );
    }

    // Targets must be CHAPTER/NAME of plain names; problems must exist.
    #[test]
    fn bad_targets_and_problems() {
        for target in ["name", "/abs/name", "ch/../x", "ch/", "ch/a b", "ch\\x"] {
            let err = new_example(target, "sum_f32").unwrap_err().to_string();
            assert!(err.contains("is not CHAPTER/NAME"), "{target}: {err}");
        }
        let err = new_example("ch/a", "sum_f64").unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown problem `sum_f64`: this runner knows sum_f32, softmax_rows, layernorm_rows, transpose, histogram_u8, histogram_u8_skewed, scan_f32, matmul_f32, pointer_chase, fma_f32, elementwise, transfer"
        );
        assert_eq!(
            new_example("ch/2pass.cu", "sum_f32").unwrap().kernel,
            "k_2pass"
        );
        assert_eq!(
            new_example("part/ch/a", "sum_f32").unwrap().file,
            "part/ch/a.cu"
        );
    }

    // The next steps give the block to paste and the commands, in order.
    #[test]
    fn next_steps_name_the_fence_and_the_commands() {
        let steps = next_steps(&new_example("reductions/my_sum", "sum_f32").unwrap());
        assert!(steps.starts_with(
            "Show it in its chapter (src/reductions.md, say) with an empty block:\n\n```cuda run file=reductions/my_sum.cu\n```\n"
        ));
        let order: Vec<usize> = [
            "mdbook-cuda check",
            "scripts/serve",
            "scripts/test --author",
            "scripts/book",
        ]
        .iter()
        .map(|c| steps.find(c).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{steps}");
    }
}
