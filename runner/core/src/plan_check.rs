//! The checks of a declaration that need neither a GPU nor a compiler,
//! run whenever the book resolves its examples: at every declared size and
//! every edge size of the problem, the launch plan must resolve (no unknown
//! variable, no empty grid), fit the target GPU's limits (threads per
//! block, grid, dynamic shared memory) and bind every argument to a buffer,
//! a scratch buffer or a scalar. The runner makes the same checks on the
//! GPU, with the device's own limits and the kernels' registers and static
//! shared memory, before every launch.

use crate::binding;
use crate::example::Example;
use crate::header_lines::HeaderError;
use crate::launch_plan::{resolve_shape, shape};
use crate::limits::{self, KnownGpu};
use crate::problem::Shape;
use std::collections::BTreeMap;

/// The checks every build and both `check` commands run: [`check`] on the
/// book's target GPU, except for an example that declares `expect =
/// "launch-error"`, which is left to fail on the GPU as it says it will.
pub fn check_as_declared(example: &Example) -> Result<(), HeaderError> {
    if example.declaration.expect == crate::declaration::Expectation::LaunchError {
        return Ok(());
    }
    check(example, KnownGpu::target())
}

/// Checks `example`'s plans on `gpu`, each value of a sweep on its own.
/// The error names the header line to change, the value, and the size
/// when not every size fails alike.
pub fn check(example: &Example, gpu: &KnownGpu) -> Result<(), HeaderError> {
    for (value, variant) in example.variants() {
        check_one(&variant, gpu).map_err(|mistake| match value {
            Some(v) => HeaderError::from(format!("with {v}: {mistake}")),
            None => mistake,
        })?;
    }
    Ok(())
}

/// [`check`] of an example compiled and planned one way.
fn check_one(example: &Example, gpu: &KnownGpu) -> Result<(), HeaderError> {
    let decl = &example.declaration;
    let Some(problem) = decl.resolve_problem() else {
        // The declaration refuses unknown problems when it is parsed.
        return Ok(());
    };
    // Declared sizes first, then the problem's edge shapes.
    let mut runs: Vec<Result<Shape, HeaderError>> = decl
        .sizes
        .iter()
        .map(|s| shape(decl, *s).map_err(|e| HeaderError::from(e.at(example))))
        .collect();
    for edge in problem.edge_shapes() {
        if !runs.contains(&Ok(edge)) {
            runs.push(Ok(edge));
        }
    }
    let device = gpu.limits();
    let no_needs = BTreeMap::new();
    let failures: Vec<(usize, HeaderError)> = runs
        .iter()
        .enumerate()
        .filter_map(|(k, run)| {
            let failure = run.clone().and_then(|s| {
                let plan = resolve_shape(decl, s, gpu.sm_count).map_err(|e| e.at(example))?;
                limits::check(&plan, &device, &no_needs, example)?;
                binding::bind(example, &*problem, &plan).map(drop)
            });
            failure.err().map(|message| (k, message))
        })
        .collect();
    let Some((k, message)) = failures.first() else {
        return Ok(());
    };
    if failures.len() == runs.len() && failures.iter().all(|(_, m)| m == message) {
        return Err(message.clone());
    }
    if *k < decl.sizes.len() {
        let size = decl.sizes[*k];
        let at = if size.is_flat() {
            format!("n = {size}")
        } else {
            format!("{} {size}", crate::dims::Dims::describe(size.dims()))
        };
        return Err(message.clone().at(at));
    }
    let Ok(edge) = runs[*k] else {
        return Err(message.clone());
    };
    let at = edge.describe(decl.rows.is_some());
    Err(message
        .clone()
        .at(format!("{at} (an edge size of `{}`)", problem.name())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(launch: &str) -> Example {
        let body = format!(
            "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\", \"2^30\"]\n[[launch]]\nkernel = \"k\"\n{launch}\n+++*/\n"
        );
        let dir = std::env::temp_dir();
        Example::from_inline(&dir, "src/ch.md", &dir, &body, 10, "demo").unwrap()
    }

    fn refusal(launch: &str) -> String {
        check(&example(launch), KnownGpu::target())
            .unwrap_err()
            .to_string()
    }

    const FINE: &str = "grid = \"min(ceil_div(n, 1024), sms * 4)\"\nblock = 256\nargs = [\"input\", \"out\", \"n\"]";

    // A plan that fits at every size passes.
    #[test]
    fn a_plan_that_fits_passes() {
        assert_eq!(check(&example(FINE), KnownGpu::target()), Ok(()));
    }

    // `N` for `n`: the expression, its line and the variables there.
    #[test]
    fn an_unknown_variable_names_the_line_and_the_variables() {
        let e = refusal(&FINE.replace("ceil_div(n, 1024)", "ceil_div(N, 1024)"));
        assert_eq!(
            e,
            "`launch 0 grid = \"min(ceil_div(N, 1024), sms * 4)\"` at src/ch.md:15: unknown variable `N`: the variables here are n, sms; expressions also use + - * / %, min(a, b), max(a, b), ceil_div(a, b) and pow2_floor(a)"
        );
    }

    // An unknown function is named too.
    #[test]
    fn an_unknown_function_is_named() {
        let e = refusal(&FINE.replace("ceil_div", "div_up"));
        assert!(e.contains("unknown function `div_up`"), "{e}");
    }

    // A block the GPU refuses at every size: no size in the message.
    #[test]
    fn too_large_a_block_is_refused_at_its_line() {
        let e = refusal(&FINE.replace("block = 256", "block = 2048"));
        assert_eq!(
            e,
            "launch 0 (`k`) asks for blocks of 2048 threads; NVIDIA H200 allows at most 1024 threads per block: lower `block` at src/ch.md:16"
        );
    }

    // Shared memory that grows with n fails at the first size past the
    // limit, named with its size.
    #[test]
    fn shared_memory_past_the_limit_names_the_size() {
        let e = refusal(&format!("{FINE}\nshared = \"n / 1024\""));
        assert!(
            e.starts_with("at n = 2^30: launch 0 (`k`) asks for 1048576 B of dynamic shared memory; NVIDIA H200 allows at most 232448 B (227 KiB) per block"),
            "{e}"
        );
        assert!(e.ends_with("lower `shared` at src/ch.md:18"), "{e}");
    }

    // An empty grid at an edge size says it is one.
    #[test]
    fn an_empty_grid_at_an_edge_size_says_so() {
        let e = refusal(&FINE.replace("min(ceil_div(n, 1024), sms * 4)", "n / 1024"));
        assert!(
            e.starts_with("at n = 1 (an edge size of `sum_f32`): `launch 0 grid = \"n / 1024\"` at src/ch.md:15: evaluates to 0"),
            "{e}"
        );
    }

    // An argument that is no buffer, scratch buffer or scalar.
    #[test]
    fn an_argument_naming_nothing_is_refused() {
        let e = refusal(&FINE.replace("\"n\"]", "\"size\"]"));
        assert_eq!(
            e,
            "launch 0 (`k`): argument `size` is not a buffer of `sum_f32` (input, out), a scratch buffer (none declared) or a scalar (n, sms, grid0, block0): fix `args` at src/ch.md:17"
        );
    }

    // The SM count of the GPU checked against goes into `sms`.
    #[test]
    fn plans_use_the_gpus_sm_count() {
        let ex = example(&format!("{FINE}\nshared = \"sms * 1024\""));
        assert!(check(&ex, KnownGpu::target()).is_ok());
        let l40s = KnownGpu::named("NVIDIA L40S").unwrap();
        let e = check(&ex, l40s).unwrap_err().to_string();
        assert!(
            e.starts_with("launch 0 (`k`) asks for 145408 B of dynamic shared memory; NVIDIA L40S allows at most 101376 B (99 KiB)"),
            "{e}"
        );
    }
}
