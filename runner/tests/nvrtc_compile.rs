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

fn book_kernels() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels")
}

/// An inline example whose header launches `kernel` with `args`.
fn inline(kernel: &str, args: &str, code: &str) -> Example {
    let body = format!(
        "/*+++\nproblem = \"sum_f32\"\nsizes = [1024]\n[[launch]]\nkernel = \"{kernel}\"\ngrid = 1\nblock = 32\nargs = {args}\n+++*/\n{code}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    Example::from_inline(
        dir.path(),
        "src/chapter.md",
        dir.path(),
        &body,
        40,
        "inline",
    )
    .unwrap()
}

// The entry points of a book kernel, read from NVRTC's own PTX: two
// pointers and an unsigned int per kernel, matching its declaration.
#[test]
fn entry_points_of_a_book_kernel_are_read_from_the_ptx() {
    use cuda_runner::ptx::{Entry, ParamKind::*};
    let kernels = book_kernels();
    let root = kernels.parent().unwrap();
    let example = Example::from_file(root, &kernels, "reductions/two_pass.cu", None, None).unwrap();
    let compiled = compile_or_explain(&example).expect("compiles");
    let entry = |name: &str| Entry {
        name: name.into(),
        params: vec![U64, U64, U32],
    };
    assert_eq!(
        compiled.entries,
        [entry("partial_sums"), entry("final_sum")]
    );
    assert_eq!(
        cuda_runner::signature::check(&example, &compiled.entries).map_err(|e| e.to_string()),
        Ok(())
    );
}

// A kernel without `extern "C"` compiles under its mangled C++ name, and
// the check says to declare it `extern "C"`.
#[test]
fn a_kernel_without_extern_c_is_found_under_its_mangled_name() {
    let example = inline(
        "sum_k",
        r#"["input", "out", "n"]"#,
        "__global__ void sum_k(const float* x, float* out, unsigned n) {}",
    );
    let compiled = compile_or_explain(&example).expect("compiles");
    let names: Vec<&str> = compiled.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["_Z5sum_kPKfPfj"]);
    assert_eq!(
        cuda_runner::signature::check(&example, &compiled.entries)
            .map_err(|e| e.to_string())
            .unwrap_err(),
        "launch 0: kernel `sum_k` is in the compiled code only under its C++ name `_Z5sum_kPKfPfj`: declare it `extern \"C\" __global__` so that its name is kept (`kernel` at src/chapter.md:44)"
    );
}

// A misspelt kernel name, a missing `n` and a `size_t n` are each caught
// against what NVRTC compiled.
#[test]
fn declarations_that_do_not_match_the_compiled_kernel_are_caught() {
    let code = "extern \"C\" __global__ void sum_k(const float* x, float* out, unsigned n) {}\nextern \"C\" __global__ void sum_wide(const float* x, float* out, size_t n) {}";
    let check = |kernel: &str, args: &str| {
        let example = inline(kernel, args, code);
        let compiled = compile_or_explain(&example).expect("compiles");
        cuda_runner::signature::check(&example, &compiled.entries).map_err(|e| e.to_string())
    };
    assert_eq!(check("sum_k", r#"["input", "out", "n"]"#), Ok(()));
    assert_eq!(
        check("sum_typo", r#"["input", "out", "n"]"#).unwrap_err(),
        "launch 0: kernel `sum_typo` is not in the compiled code; it defines: sum_k, sum_wide: fix `kernel` at src/chapter.md:44"
    );
    assert_eq!(
        check("sum_k", r#"["input", "out"]"#).unwrap_err(),
        "launch 0 (`sum_k`) passes 2 arguments (input, out), but the kernel takes 3 parameters (64-bit, 64-bit, 32-bit int): the kernel would read garbage for what is missing; list one argument per parameter, in order, in `args` at src/chapter.md:47"
    );
    assert_eq!(
        check("sum_wide", r#"["input", "out", "n"]"#).unwrap_err(),
        "launch 0 (`sum_wide`): argument 3, `n`, is a scalar and binds as an unsigned int (32 bits), but the kernel's parameter 3 is a 64-bit value (a pointer, or an integer such as size_t): take scalars as `unsigned int` in the kernel, or put `args` in the kernel's order at src/chapter.md:47"
    );
}

// `cuda-runner compile`, the entry the book build and `mdbook-cuda check`
// use, reports each compiled example's entry points, and which NVRTC
// compiled it (the book's compile cache is keyed by its version and
// watches its library file).
#[test]
fn the_compile_job_reports_entry_points() {
    use cuda_runner::compile_job::{CompileAnswer, CompileJob, CompileVerdict};
    if compile::nvrtc_version().is_none() {
        panic!(
            "NVRTC is not on the loader path: run scripts/test, or add nvidia/cu13/lib of `pip install nvidia-cuda-nvrtc==13.0.88` to LD_LIBRARY_PATH"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.json");
    let example = inline(
        "sum_k",
        r#"["input", "out", "n"]"#,
        "extern \"C\" __global__ void sum_k(const float* x, float* out, unsigned n) {}",
    );
    let examples = vec![example];
    std::fs::write(&job, serde_json::to_vec(&CompileJob { examples }).unwrap()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .args(["compile", "--arch", ARCH, "--job"])
        .arg(&job)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let answer = CompileAnswer::parse(&output.stdout).unwrap();
    let nvrtc = answer.nvrtc.expect("the runner names its NVRTC");
    assert_eq!(Some(nvrtc.version), compile::nvrtc_version());
    let library = nvrtc
        .library
        .expect("the runner names the library it loaded");
    assert!(library.contains("libnvrtc"), "{library}");
    assert_eq!(answer.runner, env!("CARGO_PKG_VERSION"));
    match &answer.verdicts[..] {
        [CompileVerdict::Compiled { entries, .. }] => {
            assert_eq!(entries.len(), 1);
            assert_eq!(entries[0].name, "sum_k");
        }
        other => panic!("expected one compiled verdict, got {other:?}"),
    }
}

/// The processes whose command line names `needle`, from /proc: their
/// ids and command lines.
fn processes_naming(needle: &str) -> Vec<(String, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path();
            let cmdline = std::fs::read(path.join("cmdline")).ok()?;
            let pid = path.file_name()?.to_string_lossy().into_owned();
            Some((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")))
        })
        .filter(|(_, c)| c.contains(needle))
        .collect()
}

/// Ends the processes naming `needle` (a failed test's leftovers, which
/// would otherwise hold the test's output open for minutes) and says
/// which they were.
fn end_processes_naming(needle: &str) -> Vec<(String, String)> {
    let left = processes_naming(needle);
    for (pid, _) in &left {
        let _ = std::process::Command::new("kill")
            .args(["-9", pid])
            .status();
    }
    left
}

// The planted compile bomb (NVRTC takes minutes over it) ends as a
// compile time-out at its `compile_timeout_s` of 5 s: the worker process
// compiling it is killed, not left running, and the example after it
// compiles in a fresh worker.
#[cfg(target_os = "linux")]
#[test]
fn a_compile_bomb_is_stopped_at_its_limit_and_the_next_example_compiles() {
    use cuda_runner::compile_job::{CompileAnswer, CompileJob, CompileVerdict};
    let kernels = planted_kernels();
    let root = kernels.parent().unwrap();
    let examples: Vec<Example> = ["planted/compile_bomb.cu", "planted/passes.cu"]
        .iter()
        .map(|file| Example::from_file(root, &kernels, file, None, None).unwrap())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("bomb-job.json");
    std::fs::write(&job, serde_json::to_vec(&CompileJob { examples }).unwrap()).unwrap();
    let start = std::time::Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .args(["compile", "--arch", ARCH, "--job"])
        .arg(&job)
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(output.status.success(), "{output:?}");
    let answer = CompileAnswer::parse(&output.stdout).unwrap();
    assert!(
        answer.nvrtc.is_some(),
        "NVRTC is not on the loader path: run scripts/test"
    );
    match &answer.verdicts[..] {
        [
            CompileVerdict::TimedOut { limit_s: 5 },
            CompileVerdict::Compiled { entries, .. },
        ] => {
            assert_eq!(entries[0].name, "sum_block_atomic");
        }
        other => panic!("expected a time-out, then a compiled verdict: {other:?}"),
    }
    assert!(took < std::time::Duration::from_secs(40), "took {took:?}");
    let left = end_processes_naming(&job.to_string_lossy());
    assert!(
        left.is_empty(),
        "compiling processes left running: {left:?}"
    );
}

// `kill -9` of a `cuda-runner compile` busy with the compile bomb ends its
// worker too: NVRTC is not left compiling for minutes.
#[cfg(target_os = "linux")]
#[test]
fn killing_the_compile_run_ends_its_worker() {
    use cuda_runner::compile_job::CompileJob;
    let kernels = planted_kernels();
    let root = kernels.parent().unwrap();
    let bomb = Example::from_file(root, &kernels, "planted/compile_bomb.cu", None, None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("killed-job.json");
    let examples = vec![bomb];
    std::fs::write(&job, serde_json::to_vec(&CompileJob { examples }).unwrap()).unwrap();
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .args(["compile", "--arch", ARCH, "--job"])
        .arg(&job)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let needle = job.to_string_lossy().into_owned();
    let start = std::time::Instant::now();
    // The supervisor and its worker both name the job.
    while processes_naming(&needle).len() < 2 {
        assert!(start.elapsed().as_secs() < 4, "no worker started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    run.kill().unwrap();
    run.wait().unwrap();
    let killed = std::time::Instant::now();
    while !processes_naming(&needle).is_empty() {
        if killed.elapsed().as_secs() >= 3 {
            let left = end_processes_naming(&needle);
            panic!("the worker outlived its supervisor: {left:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

// A host header (which NVRTC does not ship) is explained in the summary line:
// device printf needs no include.
#[test]
fn a_host_header_is_explained() {
    let body = "/*+++\nproblem = \"sum_f32\"\nsizes = [1024]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\n#include <cstdio>\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) { printf(\"%u\\n\", n); }\n";
    let dir = tempfile::tempdir().unwrap();
    let example =
        Example::from_inline(dir.path(), "src/ch.md", dir.path(), body, 5, "host").unwrap();
    match compile_or_explain(&example) {
        Err(CompileError::Source { first_error, .. }) => {
            assert!(first_error.starts_with("src/ch.md(14)"), "{first_error}");
            assert!(
                first_error.contains("NVRTC has no host headers; device printf needs no include"),
                "{first_error}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

// `cuda-runner check` judges like `mdbook-cuda check`: a declared compile
// error passes, a plan the GPU would refuse and a declaration that does not
// match its kernel fail, each with the same message.
#[test]
fn the_cli_check_judges_like_the_book_check() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../preprocessor/tests/fixtures");
    let run = |path: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
            .arg("check")
            .arg(path)
            .output()
            .expect("cuda-runner runs")
    };
    // The line of `id` in the output, with its verdict word.
    let line = |out: &str, word: &str, id: &str| {
        out.lines()
            .find(|l| l.starts_with(word) && l[word.len()..].trim_start().starts_with(id))
            .unwrap_or_else(|| panic!("no `{word} {id}` line in:\n{out}"))
            .to_string()
    };
    let declared = run(&fixtures.join("planted/kernels/planted/compile_error.cu"));
    let out = String::from_utf8_lossy(&declared.stdout);
    assert!(declared.status.success(), "{out}");
    assert!(line(&out, "ok", "planted/compile_error").contains("compile error, as declared"));
    let mismatched = run(&fixtures.join("mismatched/kernels"));
    let out = String::from_utf8_lossy(&mismatched.stdout);
    assert!(!mismatched.status.success(), "{out}");
    assert!(line(&out, "FAILED", "mismatched/kernel_typo").contains("compiles, but does not match its declaration: launch 0: kernel `sum_typo` is not in the compiled code"));
    assert!(
        line(&out, "FAILED", "mismatched/big_block")
            .contains("launch 0 (`sum_k`) asks for blocks of 2048 threads")
    );
    line(&out, "ok", "mismatched/matches");
}

// The planted fault kernels' PTX says what explains their faults: the
// trap, the assert and the recursion are read from NVRTC's real output,
// and a kernel without any of them has none.
#[test]
fn planted_fault_kernels_show_their_cause_in_the_ptx() {
    use cuda_measured_core::ptx_calls::KernelCode;
    let kernels = planted_kernels();
    let root = kernels.parent().unwrap();
    let code = |file: &str, kernel: &str| {
        let example = Example::from_file(root, &kernels, file, None, None).unwrap();
        let compiled = compile_or_explain(&example).expect("compiles");
        compiled.code[kernel]
    };
    let only = |recurses, traps, asserts| KernelCode {
        recurses,
        traps,
        asserts,
    };
    assert_eq!(
        code("planted/traps.cu", "sum_trap"),
        only(false, true, false)
    );
    assert_eq!(
        code("planted/asserts.cu", "sum_assert"),
        only(false, false, true)
    );
    assert_eq!(
        code("planted/deep_recursion.cu", "sum_recursive"),
        only(true, false, false)
    );
    assert_eq!(
        code("planted/passes.cu", "sum_block_atomic"),
        KernelCode::default()
    );
}

// The measuring method's own kernels (blocker, ceilings, poison, digest and
// the prefix-sum check) compile: a GPU run would otherwise fail at its
// first example.
#[test]
fn the_support_kernels_compile() {
    match cuda_runner::measure::support_cubin(ARCH, None) {
        Ok(cubin) => assert_eq!(&cubin[..4], b"\x7fELF"),
        Err(e) => panic!("the support kernels do not compile: {e:#}"),
    }
}
