//! Compiling a job's examples each within its own limit
//! ([`compile_limit`]): NVRTC cannot be interrupted inside a process, so a
//! worker process (`cuda-runner compile --from K`, this same executable)
//! compiles the examples from position K on and prints one verdict line
//! per example as it finishes it. The supervisor waits on each line for
//! that example's limit; at a time-out it kills the worker, records
//! [`CompileVerdict::TimedOut`] and starts a fresh worker after that
//! example. A book whose kernels all compile in time costs one extra
//! process start, however many examples it has. A worker dies with its
//! supervisor ([`die_with_this_process`]).

use anyhow::{Context, Result};
use cuda_measured_core::launcher::Launcher;
use cuda_runner::compile_job::{CompileVerdict, compile_limit};
use cuda_runner::example::Example;
use cuda_runner::lifetime::die_with_this_process;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// The verdicts on `examples` (the examples of the job file `job`),
/// compiled for `arch` by worker processes, each within its limit.
pub fn verdicts(job: &Path, arch: &str, examples: &[Example]) -> Result<Vec<CompileVerdict>> {
    let exe = std::env::current_exe().context("locating cuda-runner itself")?;
    verdicts_launched(&Launcher::direct(), &exe, job, arch, examples, None)
}

/// [`verdicts`] with the workers of `exe` started by `launcher` (the Run
/// service's, which may sandbox them) and each example's limit at most
/// `cap` when given.
pub fn verdicts_launched(
    launcher: &Launcher,
    exe: &Path,
    job: &Path,
    arch: &str,
    examples: &[Example],
    cap: Option<Duration>,
) -> Result<Vec<CompileVerdict>> {
    let limit_of = |example: &Example| {
        let own = compile_limit(example);
        cap.map_or(own, |cap| own.min(cap))
    };
    let mut verdicts = Vec::with_capacity(examples.len());
    while verdicts.len() < examples.len() {
        let from = verdicts.len();
        let mut command = launcher.command(exe);
        command
            .args([
                "compile",
                "--arch",
                arch,
                "--from",
                &from.to_string(),
                "--job",
            ])
            .arg(job)
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        // A supervisor stopped or killed (the build's own limit, `kill -9`)
        // takes its worker with it: NVRTC is not left running for minutes.
        // This thread waits for the worker, as the signal requires.
        die_with_this_process(&mut command);
        let mut worker = command
            .spawn()
            .with_context(|| format!("starting a compiling process ({})", exe.display()))?;
        let stdout = worker.stdout.take().expect("stdout is piped");
        let (lines, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        // Each example's limit runs from the verdict before it (or the
        // worker's start).
        while verdicts.len() < examples.len() {
            let example = &examples[verdicts.len()];
            let limit = limit_of(example);
            match answers.recv_timeout(limit) {
                Ok(Ok(line)) => {
                    verdicts.push(serde_json::from_str(&line).with_context(|| {
                        format!("reading a compiling process's verdict: {line}")
                    })?)
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = worker.kill();
                    verdicts.push(CompileVerdict::TimedOut {
                        limit_s: limit.as_secs(),
                    });
                    break;
                }
                Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                    let status = worker.wait().context("waiting for a compiling process")?;
                    verdicts.push(CompileVerdict::Failed {
                        message: format!(
                            "the compiling process ended ({status}) without a verdict: NVRTC crashed on this example"
                        ),
                    });
                    break;
                }
            }
        }
        worker.wait().context("waiting for a compiling process")?;
    }
    Ok(verdicts)
}

/// The verdicts on `examples` for `arch`, each within its limit, through
/// a job file of their own (`cuda-runner check`).
pub fn verdicts_of(arch: &str, examples: &[Example]) -> Result<Vec<CompileVerdict>> {
    let mut job = tempfile::NamedTempFile::new().context("writing the compile job")?;
    serde_json::to_writer(
        &mut job,
        &cuda_runner::compile_job::CompileJob {
            examples: examples.to_vec(),
        },
    )
    .context("writing the compile job")?;
    job.flush().context("writing the compile job")?;
    verdicts(job.path(), arch, examples)
}

/// The worker's part: compiles `examples` for `arch` one after another,
/// printing each verdict as one JSON line as soon as it is known.
pub fn work(arch: &str, examples: &[Example]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    for example in examples {
        let verdict = super::compile::verdict_of(example, arch);
        writeln!(out, "{}", serde_json::to_string(&verdict)?)?;
        out.flush()?;
    }
    Ok(())
}
