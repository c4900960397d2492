//! The Run service's compile child inside the sandbox: `cuda-runner
//! compile` of a book kernel works there (NVRTC and its built-in headers
//! readable, nothing else), a compile error comes back as a verdict, and
//! an include naming a host file, even one that slipped past the book's
//! include scanner, finds nothing to read. Needs NVRTC on the loader
//! path (scripts/test puts it there) and bubblewrap (skipped, with the
//! reason printed, where it is not installed and not required).

mod sandbox_support;

use cuda_runner::compile_job::{CompileAnswer, CompileJob, CompileVerdict};
use cuda_runner::example::Example;
use cuda_runner::sandbox::{Policy, Sandbox};
use sandbox_support::{repo, sandbox};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const ARCH: &str = "sm_90";

/// A book kernel, as the service would resolve it.
fn book_kernel(path: &str) -> Example {
    let root = repo();
    Example::from_file(&root, &root.join("kernels"), path, None, None).unwrap()
}

/// Writes a compile job of `examples` into `dir` and runs `cuda-runner
/// compile` on it through `launcher`, the job's folder readable: the
/// answer, and what the child wrote to stderr.
fn compile_in(launcher: &Sandbox, dir: &Path, examples: Vec<Example>) -> (CompileAnswer, String) {
    let job = dir.join("job.json");
    std::fs::write(&job, serde_json::to_vec(&CompileJob { examples }).unwrap()).unwrap();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_cuda-runner"));
    let mut inner = Command::new(&exe);
    inner.args(["compile", "--arch", ARCH, "--job"]).arg(&job);
    // The service gives its job folder to the sandbox's user (a root
    // service's sandbox runs as nobody on the host).
    launcher.share(dir).unwrap();
    let policy = Policy::compile().readable(dir);
    let mut command = launcher.wrap(inner, &policy);
    let finished =
        cuda_runner::child::run_limited(&mut command, Duration::from_secs(120), 1 << 22, 1 << 20)
            .unwrap();
    let stderr = String::from_utf8_lossy(finished.stderr.bytes()).into_owned();
    assert!(
        finished.status.is_some_and(|s| s.success()),
        "{:?}: {stderr}",
        finished.status
    );
    let answer =
        CompileAnswer::parse(finished.stdout.bytes()).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (answer, stderr)
}

// A book kernel (two_pass.cu, which includes a header of kernels/)
// compiles inside the sandbox with the NVRTC of the loader path, as it
// does outside; the answer names that NVRTC, and a broken kernel comes
// back as a compile error with its line.
#[test]
fn a_book_kernel_compiles_inside_the_sandbox() {
    let Some(launcher) = sandbox() else { return };
    let dir = tempfile::tempdir().unwrap();
    let good = book_kernel("reductions/two_pass.cu");
    let mut broken = good.clone();
    broken.source = broken
        .source
        .replacen("__global__", "__global__ not_a_type", 1);
    let (answer, stderr) = compile_in(&launcher, dir.path(), vec![good, broken]);
    let nvrtc = answer
        .nvrtc
        .unwrap_or_else(|| panic!("no NVRTC inside: {stderr}"));
    assert!(nvrtc.library.unwrap_or_default().contains("libnvrtc"));
    match &answer.verdicts[..] {
        [
            CompileVerdict::Compiled { entries, .. },
            CompileVerdict::Refused { first_error, .. },
        ] => {
            assert!(!entries.is_empty());
            assert!(first_error.contains("error"), "{first_error}");
        }
        other => panic!("expected compiled, then refused: {other:?}"),
    }
}

// An include naming a file outside kernels/ (planted in the home folder
// for the test; the book's scanner refuses such an include, so it is
// put into the job directly, as a scanner bug would let it through) is
// read by NVRTC outside the sandbox and not found inside it.
#[test]
fn an_include_of_a_host_file_finds_nothing_inside() {
    let Some(launcher) = sandbox() else { return };
    let home = PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
    let planted = tempfile::Builder::new()
        .prefix(".cuda-measured-sandbox-probe-")
        .suffix(".h")
        .tempfile_in(&home)
        .unwrap();
    std::fs::write(planted.path(), "#error \"planted-secret-7f3a\"\n").unwrap();
    let mut example = book_kernel("vector-add/add.cu");
    example.source = format!(
        "#include \"{}\"\n{}",
        planted.path().display(),
        example.source
    );

    let dir = tempfile::tempdir().unwrap();
    let (outside, _) = compile_in(&Sandbox::None, dir.path(), vec![example.clone()]);
    match &outside.verdicts[..] {
        [CompileVerdict::Refused { log, .. }] => {
            assert!(log.contains("planted-secret-7f3a"), "{log}")
        }
        other => panic!("outside the sandbox NVRTC should read the planted file: {other:?}"),
    }
    let (inside, _) = compile_in(&launcher, dir.path(), vec![example]);
    match &inside.verdicts[..] {
        [CompileVerdict::Refused { log, .. }] => {
            assert!(!log.contains("planted-secret-7f3a"), "{log}");
            assert!(log.contains("cannot open source file"), "{log}");
        }
        other => panic!("inside, the include should not be found: {other:?}"),
    }
}

// Inside the compile sandbox the only mounts are the system's, the
// private /tmp and /dev, /proc, and what the service names: the
// executable, the loader path's library files, the job's folder. None
// lies in the home folder, and the only ones in the repository are the
// executable and library files.
#[test]
fn only_the_named_paths_are_mounted() {
    let Some(launcher) = sandbox() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_cuda-runner"))
        .canonicalize()
        .unwrap();
    let mut inner = Command::new("cat");
    inner.arg("/proc/self/mountinfo");
    launcher.share(dir.path()).unwrap();
    let policy = Policy::compile().readable(dir.path()).readable(&exe);
    let mut command = launcher.wrap(inner, &policy);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let mountinfo = String::from_utf8_lossy(&output.stdout);
    let home = PathBuf::from(std::env::var_os("HOME").unwrap())
        .canonicalize()
        .unwrap();
    let job = dir.path().canonicalize().unwrap();
    let repo = repo();
    for point in mountinfo.lines().filter_map(|l| l.split(' ').nth(4)) {
        let point = Path::new(point);
        let system = ["/", "/usr", "/proc", "/dev", "/tmp", "/etc"]
            .iter()
            .any(|s| point == Path::new(s) || (*s != "/" && point.starts_with(s)));
        let library = point
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains(".so"));
        let allowed = system || point == exe || point == job || library;
        assert!(
            allowed,
            "unexpected mount {}:\n{mountinfo}",
            point.display()
        );
        if point.starts_with(&home) || point.starts_with(&repo) {
            assert!(
                point == exe || library,
                "{} is in the home folder or the repository",
                point.display()
            );
        }
        if point.starts_with("/etc") {
            let text = point.to_string_lossy();
            assert!(
                text.starts_with("/etc/ld.so") || text == "/etc/alternatives",
                "{}",
                point.display()
            );
        }
    }
}
