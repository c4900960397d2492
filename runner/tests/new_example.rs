//! `cuda-runner new`: the starting file of a new example, written where a
//! book keeps its kernels, compiles with NVRTC (no GPU needed; NVRTC 13 on
//! the loader path, as `scripts/test` sets it up) and is never written over.

use cuda_runner::compile::{self, CompileError};
use cuda_runner::example::Example;
use std::process::Command;

fn cuda_runner(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("cuda-runner runs")
}

// In a book's root, `new` writes the file, prints the block to paste and
// the next steps, and the file compiles; asked again, it refuses.
#[test]
fn new_writes_a_kernel_that_compiles_and_never_overwrites() {
    let book = tempfile::tempdir().unwrap();
    let kernels = book.path().join("kernels");
    std::fs::create_dir(&kernels).unwrap();
    let args = ["new", "reductions/my_sum", "--problem", "sum_f32"];
    let run = cuda_runner(book.path(), &args);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.starts_with("wrote kernels/reductions/my_sum.cu (problem sum_f32, kernel my_sum)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n```cuda run file=reductions/my_sum.cu\n```\n"),
        "{stdout}"
    );
    let example =
        Example::from_file(book.path(), &kernels, "reductions/my_sum.cu", None, None).unwrap();
    match compile::compile(&example, "sm_90") {
        Ok(compiled) => assert_eq!(&compiled.cubin[..4], b"\x7fELF"),
        Err(CompileError::NoNvrtc) => panic!(
            "NVRTC is not on the loader path: run scripts/test, or add nvidia/cu13/lib of `pip install nvidia-cuda-nvrtc==13.0.88` to LD_LIBRARY_PATH"
        ),
        Err(e) => panic!("the starting kernel does not compile: {e}"),
    }
    std::fs::write(kernels.join("reductions/my_sum.cu"), "edited").unwrap();
    let again = cuda_runner(book.path(), &args);
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("already exists: nothing was written"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(kernels.join("reductions/my_sum.cu")).unwrap(),
        "edited"
    );
}

// Outside a book (no kernels/ folder) nothing is written.
#[test]
fn new_needs_the_kernels_folder() {
    let dir = tempfile::tempdir().unwrap();
    let run = cuda_runner(dir.path(), &["new", "ch/a", "--problem", "sum_f32"]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("no folder kernels: run this in the book's root"),
        "{stderr}"
    );
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

// Every problem's starting kernel, elementwise and row-wise ones included,
// compiles, and its declaration matches the compiled kernel's parameters
// and resolves at every declared and edge size on the target GPU.
#[test]
fn every_problems_starting_kernel_compiles_and_matches_its_declaration() {
    let book = tempfile::tempdir().unwrap();
    let kernels = book.path().join("kernels");
    std::fs::create_dir(&kernels).unwrap();
    for problem in cuda_runner::problem::names() {
        let target = format!("start/{problem}");
        let new = cuda_runner::template::new_example(&target, problem).unwrap();
        cuda_runner::template::write(&kernels, &new).unwrap();
        let example = Example::from_file(book.path(), &kernels, &new.file, None, None).unwrap();
        let compiled = match compile::compile(&example, "sm_90") {
            Ok(compiled) => compiled,
            Err(e) => panic!("{problem}: the starting kernel does not compile: {e}"),
        };
        cuda_runner::signature::check(&example, &compiled.entries)
            .unwrap_or_else(|e| panic!("{problem}: {e}"));
        cuda_runner::plan_check::check_as_declared(&example)
            .unwrap_or_else(|e| panic!("{problem}: {e}"));
    }
}
