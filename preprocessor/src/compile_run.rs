//! One `cuda-runner compile --job FILE --arch ARCH` run: the examples go
//! to the runner in a job file, and its [`CompileAnswer`] comes back, one
//! verdict per example. This plugin never loads NVRTC or CUDA itself.

use anyhow::Context;
use cuda_measured_core::child::run_limited;
use cuda_measured_core::compile_job::{CompileAnswer, CompileJob, compile_limit};
use cuda_measured_core::example::Example;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How long a compile run may take beyond its examples' compile limits
/// before the build goes on without it (NVRTC takes well under a second
/// per example). The runner holds each example to its own limit
/// ([`compile_limit`]), stopping NVRTC there, so a runner that keeps to
/// them never meets this one.
pub const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The architecture the book's examples are compiled for: that of its
/// target GPU, the H200 ([`cuda_measured_core::limits::KnownGpu::target`]).
pub const ARCH: &str = "sm_90";

/// Has the runner compile `examples` (none: only say which NVRTC it finds)
/// for `arch`.
pub fn compile(runner: &Path, arch: &str, examples: Vec<Example>) -> anyhow::Result<CompileAnswer> {
    let count = examples.len();
    let limit = TIME_LIMIT
        + examples
            .iter()
            .map(compile_limit)
            .sum::<std::time::Duration>();
    let mut job = tempfile::NamedTempFile::new().context("writing the compile job")?;
    job.write_all(&serde_json::to_vec(&CompileJob { examples })?)
        .context("writing the compile job")?;
    let mut command = Command::new(runner);
    command
        .args(["compile", "--arch", arch, "--job"])
        .arg(job.path());
    // A build killed takes the runner (and through it, the NVRTC worker)
    // with it.
    cuda_measured_core::lifetime::die_with_this_process(&mut command);
    // Every byte of the answer is needed; stderr only for the message.
    let finished = run_limited(&mut command, limit, usize::MAX, 64 * 1024).with_context(|| {
        format!(
            "could not start `{} compile`: build it with `cargo build -p cuda-runner`, or set `runner` in [preprocessor.cuda]",
            runner.display()
        )
    })?;
    let Some(status) = finished.status else {
        anyhow::bail!(
            "`{} compile` did not answer within {} s and was stopped",
            runner.display(),
            limit.as_secs()
        );
    };
    if !status.success() {
        anyhow::bail!(
            "`{} compile` failed ({status}): {}",
            runner.display(),
            String::from_utf8_lossy(finished.stderr.bytes()).trim()
        );
    }
    let answer = CompileAnswer::parse(finished.stdout.bytes())
        .with_context(|| format!("`{} compile` printed no verdicts", runner.display()))?;
    anyhow::ensure!(
        answer.verdicts.len() == count,
        "`{} compile` returned {} verdicts for {count} examples",
        runner.display(),
        answer.verdicts.len()
    );
    Ok(answer)
}

/// The runner's executable file: a path as it is, a bare name looked up on
/// PATH; `None` when there is no such file.
pub fn locate(runner: &Path) -> Option<PathBuf> {
    if runner.components().count() > 1 {
        return runner.is_file().then(|| runner.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(runner))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    // A path is taken as it is; a bare name is found on PATH or not at all.
    #[test]
    fn runners_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let runner = dir.path().join("cuda-runner");
        assert_eq!(locate(&runner), None);
        std::fs::write(&runner, "").unwrap();
        assert_eq!(locate(&runner), Some(runner));
        assert_eq!(locate(Path::new("no-such-runner-anywhere")), None);
        assert!(locate(Path::new("sh")).is_some(), "sh is on PATH");
    }
}
