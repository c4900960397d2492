//! What each name in a launch's `args` binds to: a buffer of the problem
//! (`input`, `out`), a scratch buffer of the declaration, a scalar the
//! problem gives (`eps`, a `float`), or a launch variable (`n`, `sms`,
//! `gridK`, `blockK`, and `rows` and `cols` for a row-wise problem).
//! Buffers are passed as device pointers (64 bits), launch variables as
//! `unsigned int` (32 bits), the problem's scalars as their own type. The runner binds
//! through [`bind`] before every launch; the book checks the same binding
//! for every size before anything runs ([`crate::plan_check`]), and the
//! kinds against the compiled kernels' parameters
//! ([`crate::signature`]).

use crate::declaration::Declaration;
use crate::example::Example;
use crate::header_lines::HeaderError;
use crate::launch_plan::{ResolvedPlan, variables_in_order};
use crate::problem::{Problem, Scalar, ScalarKind};

/// What one kernel argument binds to.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// A buffer of the problem, by name: a device pointer.
    Buffer(String),
    /// A scratch buffer of the declaration, by name: a device pointer.
    Scratch(String),
    /// A scalar's value.
    Scalar(Scalar),
}

/// How an argument is passed, whatever the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A buffer of the problem: a 64-bit device pointer.
    Buffer,
    /// A scratch buffer: a 64-bit device pointer.
    Scratch,
    /// A scalar of the given type.
    Scalar(ScalarKind),
}

impl ArgKind {
    /// How it binds, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            ArgKind::Buffer => "is a buffer and binds as a device pointer (64 bits)",
            ArgKind::Scratch => "is a scratch buffer and binds as a device pointer (64 bits)",
            ArgKind::Scalar(ScalarKind::U32) => {
                "is a scalar and binds as an unsigned int (32 bits)"
            }
            ArgKind::Scalar(ScalarKind::I32) => "is a scalar and binds as an int (32 bits)",
            ArgKind::Scalar(ScalarKind::F32) => "is a scalar and binds as a float (32 bits)",
        }
    }
}

/// How the argument `name` of `decl` binds, or `None` when it names
/// nothing.
pub fn kind_of(decl: &Declaration, problem: &dyn Problem, name: &str) -> Option<ArgKind> {
    if let Some((_, v)) = problem.scalars().iter().find(|(k, _)| *k == name) {
        return Some(ArgKind::Scalar(v.kind()));
    }
    if problem.argument_names().contains(&name) {
        return Some(ArgKind::Buffer);
    }
    if decl.scratch.contains_key(name) {
        return Some(ArgKind::Scratch);
    }
    if decl.sweep.as_ref().is_some_and(|s| s.name() == name) {
        return Some(ArgKind::Scalar(ScalarKind::U32));
    }
    if decl.rows.is_some() && (name == "rows" || name == "cols") {
        return Some(ArgKind::Scalar(ScalarKind::U32));
    }
    // A problem of several dimensions passes each under its lowercase
    // name, and has no `n`.
    let dims = problem.dims();
    if dims != crate::dims::N {
        if dims.iter().any(|d| d.variable() == name) {
            return Some(ArgKind::Scalar(ScalarKind::U32));
        }
        if name == "n" {
            return None;
        }
    }
    let launch_scalar = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|k| k.parse::<usize>().ok())
            .is_some_and(|k| k < decl.launches.len() && name == format!("{prefix}{k}"))
    };
    (name == "n" || name == "sms" || launch_scalar("grid") || launch_scalar("block"))
        .then_some(ArgKind::Scalar(ScalarKind::U32))
}

/// Binds the arguments of every launch of `plan`, in order. The error names
/// the launch, the argument, what it could have been and the header line of
/// its `args`.
pub fn bind(
    example: &Example,
    problem: &dyn Problem,
    plan: &ResolvedPlan,
) -> Result<Vec<Vec<Binding>>, HeaderError> {
    let decl = &example.declaration;
    plan.launches
        .iter()
        .enumerate()
        .map(|(i, launch)| {
            let at = || example.header_place(i, "args");
            launch
                .args
                .iter()
                .map(|name| match kind_of(decl, problem, name) {
                    Some(ArgKind::Buffer) => Ok(Binding::Buffer(name.clone())),
                    Some(ArgKind::Scratch) => Ok(Binding::Scratch(name.clone())),
                    Some(ArgKind::Scalar(_)) => {
                        if let Some((_, v)) = problem
                            .scalars_at(&plan.instance)
                            .into_iter()
                            .find(|(k, _)| k == name)
                        {
                            return Ok(Binding::Scalar(v));
                        }
                        let v = plan.scalars.get(name).copied().unwrap_or_default();
                        u32::try_from(v).map(|v| Binding::Scalar(Scalar::U32(v))).map_err(|_| {
                            format!(
                                "launch {i} (`{}`): scalar `{name}` = {v} does not fit an unsigned int: fix `args` at {}",
                                launch.kernel,
                                at()
                            )
                            .into()
                        })
                    }
                    None => Err(unknown(example, problem, plan, i, name).into()),
                })
                .collect()
        })
        .collect()
}

/// The message for an argument that names nothing.
fn unknown(
    example: &Example,
    problem: &dyn Problem,
    plan: &ResolvedPlan,
    i: usize,
    name: &str,
) -> String {
    let buffers = problem.argument_names();
    let scratch: Vec<&str> = example
        .declaration
        .scratch
        .keys()
        .map(String::as_str)
        .collect();
    format!(
        "launch {i} (`{}`): argument `{name}` is not a buffer of `{}` ({}), a scratch buffer ({}) or a scalar ({}): fix `args` at {}",
        plan.launches[i].kernel,
        problem.name(),
        buffers.join(", "),
        if scratch.is_empty() {
            "none declared".to_string()
        } else {
            scratch.join(", ")
        },
        variables_in_order(&plan.scalars).join(", "),
        example.header_place(i, "args")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch_plan::resolve;
    use crate::problem::{ScalarKind, SumF32};

    fn example(args: &str) -> Example {
        let body = format!(
            "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[scratch]\npartials = \"grid0\"\n[[launch]]\nkernel = \"a\"\ngrid = 4\nblock = 32\nargs = [\"input\", \"partials\", \"n\"]\n[[launch]]\nkernel = \"b\"\ngrid = 1\nblock = 32\nargs = {args}\n+++*/\n"
        );
        let dir = std::env::temp_dir();
        Example::from_inline(&dir, "src/ch.md", &dir, &body, 10, "demo").unwrap()
    }

    // Buffers, scratch buffers and scalars bind, with the scalars' values.
    #[test]
    fn buffers_scratch_and_scalars_bind() {
        let ex = example(r#"["partials", "out", "grid0", "block1", "sms"]"#);
        let plan = resolve(&ex.declaration, 1 << 20, 132).unwrap();
        let bound = bind(&ex, &SumF32, &plan).unwrap();
        assert_eq!(
            bound[1],
            [
                Binding::Scratch("partials".into()),
                Binding::Buffer("out".into()),
                Binding::Scalar(Scalar::U32(4)),
                Binding::Scalar(Scalar::U32(32)),
                Binding::Scalar(Scalar::U32(132)),
            ]
        );
    }

    // A name that is nothing lists what it could be and the `args` line.
    #[test]
    fn an_unknown_argument_lists_the_names() {
        let ex = example(r#"["partials", "output", "grid0"]"#);
        let plan = resolve(&ex.declaration, 1 << 20, 132).unwrap();
        assert_eq!(
            bind(&ex, &SumF32, &plan).unwrap_err().to_string(),
            "launch 1 (`b`): argument `output` is not a buffer of `sum_f32` (input, out), a scratch buffer (partials) or a scalar (n, sms, grid0, block0, grid1, block1): fix `args` at src/ch.md:24"
        );
    }

    // Launch scalars exist for the declared launches only.
    #[test]
    fn launch_scalars_stop_at_the_last_launch() {
        let ex = example(r#"["out"]"#);
        let kind = |name| kind_of(&ex.declaration, &SumF32, name);
        assert_eq!(kind("grid1"), Some(ArgKind::Scalar(ScalarKind::U32)));
        assert_eq!(kind("grid2"), None);
        assert_eq!(kind("grid01"), None);
        assert_eq!(kind("input"), Some(ArgKind::Buffer));
        assert_eq!(kind("partials"), Some(ArgKind::Scratch));
    }
}
