//! The launchers the Run service takes from its sandbox
//! (`Sandbox::launcher`, one per policy): a GPU child writes its result
//! file in the service's work folder (made by the launcher, given to the
//! sandbox's user), a compile child reads its job there and cannot write
//! it, and neither sees the service's environment. Skipped, with the
//! reason printed, only where bubblewrap is absent and not required.

mod sandbox_support;

use cuda_runner::sandbox::Policy;
use sandbox_support::sandbox;
use std::io::Write;
use std::path::Path;

/// A work folder as the service makes one: given to the sandbox's user.
fn work_folder(launcher: &cuda_runner::sandbox::Sandbox) -> tempfile::TempDir {
    let work = tempfile::Builder::new()
        .prefix("sandbox-work-")
        .tempdir()
        .unwrap();
    launcher.share(work.path()).unwrap();
    work
}

// A GPU child's launcher: the child writes the result file the launcher
// made in the work folder, and the service reads what it wrote.
#[test]
fn a_gpu_child_writes_its_result_in_the_work_folder() {
    let Some(sandbox) = sandbox() else { return };
    let work = work_folder(&sandbox);
    let mut launcher = sandbox.launcher(&Policy::gpu().writable(work.path()));
    launcher.scratch = Some(work.path().to_path_buf());
    let result = launcher.temp_file("result-", ".json").unwrap();
    assert_eq!(result.path().parent().unwrap(), work.path());
    let output = launcher
        .command(Path::new("/bin/sh"))
        .arg("-c")
        .arg(format!("echo measured > {}", result.path().display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        std::fs::read_to_string(result.path()).unwrap(),
        "measured\n"
    );
}

// A compile child's launcher: the child reads the job the service wrote
// in the work folder, cannot write there, and its environment holds
// nothing of the service's (cargo's variables here).
#[test]
fn a_compile_child_reads_its_job_and_writes_nothing() {
    let Some(sandbox) = sandbox() else { return };
    let work = work_folder(&sandbox);
    let mut launcher = sandbox.launcher(&Policy::compile().readable(work.path()));
    launcher.scratch = Some(work.path().to_path_buf());
    let mut job = launcher.temp_file("compile-", ".json").unwrap();
    job.write_all(b"{\"job\":1}").unwrap();
    job.flush().unwrap();
    let script = format!(
        "cat {job}; echo; if echo x > {job} 2>/dev/null; then echo wrote; else echo refused; fi; env | grep -c CARGO",
        job = job.path().display()
    );
    let output = launcher
        .command(Path::new("/bin/sh"))
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["{\"job\":1}", "refused", "0"],
        "{output:?}"
    );
    assert_eq!(std::fs::read(job.path()).unwrap(), b"{\"job\":1}");
}
