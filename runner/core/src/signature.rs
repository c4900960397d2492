//! The declaration against the compiled kernels: every launch's kernel must
//! be an entry point of the compiled program under its own name (a kernel
//! without `extern "C"` is there only under its mangled C++ name), and its
//! `args` must match the kernel's parameters one for one: buffers and
//! scratch buffers bind as 64-bit device pointers, scalars as 32-bit
//! `unsigned int`. The driver checks neither: a missing `n` leaves the
//! kernel reading whatever lies in the parameter's slot. `mdbook-cuda
//! check` runs this on the entry points NVRTC reports ([`crate::ptx`]).

use crate::binding::{ArgKind, kind_of};
use crate::example::Example;
use crate::header_lines::HeaderError;
use crate::problem::ScalarKind;
use crate::ptx::{Entry, ParamKind, mangled_parts};

/// Checks every launch of `example` against `entries`, the compiled
/// program's kernels; the first mismatch is the error, naming the header
/// line to change and the fix.
pub fn check(example: &Example, entries: &[Entry]) -> Result<(), HeaderError> {
    kernels_defined(example, entries)?;
    let decl = &example.declaration;
    let problem = decl.resolve_problem();
    for (i, launch) in decl.launches.iter().enumerate() {
        let Some(entry) = entries.iter().find(|e| e.name == launch.kernel) else {
            continue;
        };
        let at = example.header_place(i, "args");
        let which = format!("launch {i} (`{}`)", launch.kernel);
        if launch.args.len() != entry.params.len() {
            let params: Vec<String> = entry.params.iter().map(ParamKind::short).collect();
            return Err(format!(
                "{which} passes {} ({}), but the kernel takes {} ({}): {}list one argument per parameter, in order, in `args` at {at}",
                count(launch.args.len(), "argument"),
                launch.args.join(", "),
                count(entry.params.len(), "parameter"),
                params.join(", "),
                if launch.args.len() < entry.params.len() {
                    "the kernel would read garbage for what is missing; "
                } else {
                    ""
                }
            ).into());
        }
        let Some(problem) = problem.as_ref() else {
            continue;
        };
        for (k, (name, param)) in launch.args.iter().zip(&entry.params).enumerate() {
            let Some(kind) = kind_of(decl, &**problem, name) else {
                // Reported when the book resolves the example.
                continue;
            };
            let fits = match kind {
                ArgKind::Buffer | ArgKind::Scratch => param.is_pointer_sized(),
                ArgKind::Scalar(ScalarKind::U32 | ScalarKind::I32) => param.is_u32_sized(),
                ArgKind::Scalar(ScalarKind::F32) => param.is_f32(),
            };
            if fits {
                continue;
            }
            let elem = buffer_elem(decl, &**problem, name);
            let buffer_fix = format!(
                "take it as a pointer, `{}*` (its elements are `{elem}`),",
                elem.pointer_type()
            );
            let fix = match kind {
                ArgKind::Buffer | ArgKind::Scratch => buffer_fix.as_str(),
                ArgKind::Scalar(ScalarKind::F32) => "take it as `float`",
                ArgKind::Scalar(_) => "take scalars as `unsigned int`",
            };
            return Err(format!(
                "{which}: argument {}, `{name}`, {}, but the kernel's parameter {} is {}: {fix} in the kernel, or put `args` in the kernel's order at {at}",
                k + 1,
                kind.describe(),
                k + 1,
                param.describe()
            ).into());
        }
    }
    Ok(())
}

/// The element type of buffer or scratch buffer `name`: the problem's
/// buffer's, the scratch buffer's, else the example's data type.
fn buffer_elem(
    decl: &crate::declaration::Declaration,
    problem: &dyn crate::problem::Problem,
    name: &str,
) -> crate::problem::Elem {
    if let Some(s) = decl.scratch.get(name) {
        return s.elem();
    }
    let probe = crate::problem::Instance {
        shape: crate::problem::Shape::flat(1),
        dtype: decl.elem(),
    };
    problem
        .buffers(&probe)
        .iter()
        .find(|b| b.name == name)
        .map_or(decl.elem(), |b| b.elem)
}

/// Checks that every launch's kernel is an entry point of the program.
/// The error lists the kernels it does define, and says when the kernel is
/// there under its C++ name only.
pub fn kernels_defined(example: &Example, entries: &[Entry]) -> Result<(), HeaderError> {
    for (i, launch) in example.declaration.launches.iter().enumerate() {
        let kernel = &launch.kernel;
        if entries.iter().any(|e| &e.name == kernel) {
            continue;
        }
        let at = example.header_place(i, "kernel");
        if let Some(mangled) = entries
            .iter()
            .find(|e| mangled_parts(&e.name).contains(&kernel.as_str()))
        {
            // A template's instance: its mangled name carries the template
            // arguments (`I...E`) right after the source name.
            let template = mangled.name.contains(&format!("{}{kernel}I", kernel.len()));
            if template {
                return Err(format!(
                    "launch {i}: kernel `{kernel}` is a template, in the compiled code only as the instance `{}`; a template cannot be `extern \"C\"`: add an `extern \"C\" __global__` kernel that calls the instance you mean, or write `kernel = \"{}\"` at {at}",
                    mangled.name, mangled.name
                ).into());
            }
            return Err(format!(
                "launch {i}: kernel `{kernel}` is in the compiled code only under its C++ name `{}`: declare it `extern \"C\" __global__` so that its name is kept (`kernel` at {at})",
                mangled.name
            ).into());
        }
        if entries.is_empty() {
            return Err(format!(
                "launch {i}: kernel `{kernel}` is not in the compiled code, which defines no kernel: declare it `extern \"C\" __global__` (`kernel` at {at})"
            ).into());
        }
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        return Err(format!(
            "launch {i}: kernel `{kernel}` is not in the compiled code; it defines: {}: fix `kernel` at {at}",
            names.join(", ")
        ).into());
    }
    Ok(())
}

/// `1 argument`, `3 parameters`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ParamKind::*;

    const HEADER: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[scratch]\npartials = \"grid0\"\n[[launch]]\nkernel = \"partial_sums\"\ngrid = 4\nblock = 256\nargs = [\"input\", \"partials\", \"n\"]\n[[launch]]\nkernel = \"final_sum\"\ngrid = 1\nblock = 256\nargs = [\"partials\", \"out\", \"grid0\"]\n+++*/\n";

    fn example(header: &str) -> Example {
        let dir = std::env::temp_dir();
        Example::from_inline(&dir, "src/ch.md", &dir, header, 10, "demo").unwrap()
    }

    fn entry(name: &str, params: &[ParamKind]) -> Entry {
        Entry {
            name: name.into(),
            params: params.to_vec(),
        }
    }

    /// The entries of kernels/reductions/two_pass.cu as NVRTC compiles them.
    fn two_pass() -> Vec<Entry> {
        vec![
            entry("partial_sums", &[U64, U64, U32]),
            entry("final_sum", &[U64, U64, U32]),
        ]
    }

    // The book's two-pass declaration matches its kernels.
    #[test]
    fn a_matching_declaration_passes() {
        assert_eq!(check(&example(HEADER), &two_pass()), Ok(()));
    }

    // A kernel name the program does not define lists the ones it does.
    #[test]
    fn a_misspelt_kernel_lists_the_defined_ones() {
        let ex = example(&HEADER.replace("\"final_sum\"", "\"final_summ\""));
        assert_eq!(
            check(&ex, &two_pass()).unwrap_err().to_string(),
            "launch 1: kernel `final_summ` is not in the compiled code; it defines: partial_sums, final_sum: fix `kernel` at src/ch.md:21"
        );
    }

    // A kernel without `extern "C"` is there under its mangled name only.
    #[test]
    fn a_mangled_kernel_asks_for_extern_c() {
        let entries = vec![
            entry("_Z12partial_sumsPKfPfj", &[U64, U64, U32]),
            entry("final_sum", &[U64, U64, U32]),
        ];
        assert_eq!(
            check(&example(HEADER), &entries).unwrap_err().to_string(),
            "launch 0: kernel `partial_sums` is in the compiled code only under its C++ name `_Z12partial_sumsPKfPfj`: declare it `extern \"C\" __global__` so that its name is kept (`kernel` at src/ch.md:16)"
        );
    }

    // A program without kernels says so.
    #[test]
    fn no_kernel_at_all_says_so() {
        let e = check(&example(HEADER), &[]).unwrap_err().to_string();
        assert!(e.contains("which defines no kernel"), "{e}");
    }

    // A missing `n`: the counts, the kinds and the `args` line.
    #[test]
    fn a_missing_argument_is_counted() {
        let ex = example(&HEADER.replace("\"partials\", \"n\"]", "\"partials\"]"));
        assert_eq!(
            check(&ex, &two_pass()).unwrap_err().to_string(),
            "launch 0 (`partial_sums`) passes 2 arguments (input, partials), but the kernel takes 3 parameters (64-bit, 64-bit, 32-bit int): the kernel would read garbage for what is missing; list one argument per parameter, in order, in `args` at src/ch.md:19"
        );
    }

    // One argument too many is counted too, without the garbage.
    #[test]
    fn an_extra_argument_is_counted() {
        let ex = example(&HEADER.replace("\"grid0\"]", "\"grid0\", \"n\"]"));
        let e = check(&ex, &two_pass()).unwrap_err().to_string();
        assert!(
            e.starts_with("launch 1 (`final_sum`) passes 4 arguments (partials, out, grid0, n), but the kernel takes 3 parameters"),
            "{e}"
        );
        assert!(!e.contains("garbage"), "{e}");
    }

    // `size_t n` in the kernel: a scalar where a 64-bit value is taken.
    #[test]
    fn a_scalar_where_the_kernel_takes_64_bits() {
        let entries = vec![
            entry("partial_sums", &[U64, U64, U64]),
            entry("final_sum", &[U64, U64, U32]),
        ];
        assert_eq!(
            check(&example(HEADER), &entries).unwrap_err().to_string(),
            "launch 0 (`partial_sums`): argument 3, `n`, is a scalar and binds as an unsigned int (32 bits), but the kernel's parameter 3 is a 64-bit value (a pointer, or an integer such as size_t): take scalars as `unsigned int` in the kernel, or put `args` in the kernel's order at src/ch.md:19"
        );
    }

    // Arguments in the wrong order: a buffer where the kernel takes a
    // 32-bit integer.
    #[test]
    fn a_buffer_where_the_kernel_takes_an_integer() {
        let ex = example(&HEADER.replace(
            "[\"partials\", \"out\", \"grid0\"]",
            "[\"partials\", \"grid0\", \"out\"]",
        ));
        let e = check(&ex, &two_pass()).unwrap_err().to_string();
        assert!(
            e.starts_with("launch 1 (`final_sum`): argument 2, `grid0`, is a scalar and binds as an unsigned int (32 bits), but the kernel's parameter 2 is a 64-bit value"),
            "{e}"
        );
        let entries = vec![
            entry("partial_sums", &[U64, F32, U32]),
            entry("final_sum", &[U64, U64, U32]),
        ];
        let e = check(&example(HEADER), &entries).unwrap_err().to_string();
        assert!(
            e.contains("argument 2, `partials`, is a scratch buffer and binds as a device pointer (64 bits), but the kernel's parameter 2 is a float: take it as a pointer, `float*` (its elements are `f32`),"),
            "{e}"
        );
    }

    // A template kernel cannot be made `extern "C"`: the message says what
    // can be done instead.
    #[test]
    fn template_kernels_get_a_fix_that_works() {
        let ex = example(HEADER);
        let entries = [
            entry("_Z12partial_sumsILi256EEvPKfPfj", &[U64, U64, U32]),
            entry("final_sum", &[U64, U64, U32]),
        ];
        let e = kernels_defined(&ex, &entries).unwrap_err().to_string();
        assert!(e.contains("kernel `partial_sums` is a template"), "{e}");
        assert!(
            e.contains("write `kernel = \"_Z12partial_sumsILi256EEvPKfPfj\"`"),
            "{e}"
        );
    }
}
