//! Compiles real sources with NVRTC (no GPU needed). `scripts/test` puts
//! NVRTC 13 on the loader path; plain `cargo test` needs it there too.

use cuda_runner::compile::{self, CompileError};
use cuda_runner::example::Example;
use std::path::Path;

const ARCH: &str = "sm_90";

fn planted_kernels() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../preprocessor/tests/fixtures/planted/kernels")
}

fn compile_or_explain(example: &Example) -> Result<compile::Compiled, CompileError> {
    let result = compile::compile(example, ARCH);
    if let Err(CompileError::NoNvrtc) = result {
        panic!(
            "NVRTC is not on the loader path: run scripts/test, or add nvidia/cu13/lib of `pip install nvidia-cuda-nvrtc==13.0.88` to LD_LIBRARY_PATH"
        );
    }
    result
}

// A compile error names the author's file and line, not NVRTC's buffer.
#[test]
fn compile_errors_point_at_the_kernel_file_and_line() {
    let kernels = planted_kernels();
    let root = kernels.parent().unwrap();
    let example =
        Example::from_file(root, &kernels, "planted/compile_error.cu", None, None).unwrap();
    match compile_or_explain(&example) {
        Err(CompileError::Source { first_error, log }) => {
            assert!(
                first_error.starts_with("kernels/planted/compile_error.cu(14): error"),
                "{first_error}"
            );
            assert!(log.contains("\"scale\""), "{log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

// A correct kernel compiles to a cubin for the requested architecture.
#[test]
fn a_correct_kernel_compiles_to_machine_code() {
    let kernels = planted_kernels();
    let root = kernels.parent().unwrap();
    let example = Example::from_file(root, &kernels, "planted/passes.cu", None, None).unwrap();
    let compiled = compile_or_explain(&example).expect("compiles");
    assert_eq!(compiled.arch, ARCH);
    // An ELF image, not PTX text.
    assert_eq!(&compiled.cubin[..4], b"\x7fELF");
}

// Errors in an inline example point at the chapter's own line numbers.
#[test]
fn inline_examples_report_chapter_lines() {
    let body = "/*+++\nproblem = \"sum_f32\"\nsizes = [1024]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {\n    undefined_name();\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let example =
        Example::from_inline(dir.path(), "src/chapter.md", dir.path(), body, 40, "inline").unwrap();
    match compile_or_explain(&example) {
        Err(CompileError::Source { first_error, .. }) => {
            // Body line 11 of a block whose body starts at chapter line 40.
            assert!(
                first_error.starts_with("src/chapter.md(50): error"),
                "{first_error}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

/// Compiles `source` named `name` with the book's base options.
fn compile_named(source: &str, name: &str) -> Result<compile::Compiled, CompileError> {
    let options = compile::BASE_OPTIONS
        .iter()
        .map(|s| s.to_string())
        .collect();
    let result = compile::compile_source(source, name, options, ARCH);
    if let Err(CompileError::NoNvrtc) = result {
        panic!(
            "NVRTC is not on the loader path: run scripts/test, or add nvidia/cu13/lib of `pip install nvidia-cuda-nvrtc==13.0.88` to LD_LIBRARY_PATH"
        );
    }
    result
}

/// Puts the working directory back when dropped.
struct WorkingDir(std::path::PathBuf);

impl Drop for WorkingDir {
    fn drop(&mut self) {
        let _ = std::env::set_current_dir(&self.0);
    }
}

// An include that reaches NVRTC finds no file next to the source's name or
// in the working directory: `<...>` never searches a folder, and the base
// options stop `"..."` from searching the source's. (The runner expands
// and confines includes before NVRTC runs; this is the second fence.)
#[test]
fn includes_next_to_the_source_or_in_the_working_directory_are_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let header = "probe_beside_source.cuh";
    std::fs::write(
        dir.path().join(header),
        "#error the include reached the disk\n",
    )
    .unwrap();
    let beside = dir.path().join("k.cu").display().to_string();
    let check = |name: &str| {
        for include in [
            format!("#include <{header}>"),
            format!("#include \"{header}\""),
        ] {
            let source = format!("{include}\nextern \"C\" __global__ void k() {{}}\n");
            match compile_named(&source, name) {
                Err(CompileError::Source { log, .. }) => assert!(
                    log.contains(&format!("could not open source file \"{header}\""))
                        && !log.contains("reached the disk"),
                    "{name}: {include}: {log}"
                ),
                other => panic!("{name}: {include}: expected not found, got {other:?}"),
            }
        }
    };
    // Next to the source's name.
    check(&beside);
    // In the working directory, for a bare name (the other tests here use
    // absolute paths, so moving the working directory does not disturb
    // them).
    let _restore = WorkingDir(std::env::current_dir().unwrap());
    std::env::set_current_dir(dir.path()).unwrap();
    check("k.cu");
}

// The planted kernel that includes /etc/passwd is refused while it is
// resolved: NVRTC never sees it, and the file is never read.
#[test]
fn an_include_outside_kernels_never_reaches_nvrtc() {
    let kernels = planted_kernels();
    let root = kernels.parent().unwrap();
    let err = Example::from_file(root, &kernels, "planted/include_outside.cu", None, None)
        .expect_err("an include of /etc/passwd resolves");
    let message = err.to_string();
    assert!(
        message.contains(
            "kernels/planted/include_outside.cu:12: `#include \"/etc/passwd\"` is outside the book's kernels/ folder"
        ),
        "{message}"
    );
    assert!(!message.contains("root:"), "{message}");
}
