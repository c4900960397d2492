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
