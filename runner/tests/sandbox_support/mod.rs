//! What the sandbox tests share: the launcher (or a printed reason to
//! skip when bubblewrap is absent and not required), and a run of one
//! command in the sandbox with a wall-clock limit.

#![allow(dead_code)]

use cuda_runner::child::run_limited;
use cuda_runner::sandbox::{Bwrap, Ended, Policy, Sandbox, SandboxError};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The bubblewrap launcher, or `None` (with the reason printed) when
/// bubblewrap is not installed. With `CUDA_MEASURED_SANDBOX_TESTS=required`
/// (scripts/test sets it after installing bubblewrap) a missing or
/// unusable bubblewrap fails the test instead.
pub fn sandbox() -> Option<Sandbox> {
    let required = std::env::var("CUDA_MEASURED_SANDBOX_TESTS").is_ok_and(|v| v == "required");
    match Bwrap::find() {
        Ok(bwrap) => Some(Sandbox::Bwrap(bwrap)),
        Err(e @ SandboxError::Missing) if !required => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// How a run ended and what it printed.
#[derive(Debug)]
pub struct Outcome {
    /// How it ended; `None` when it ran past the wall-clock limit.
    pub ended: Option<Ended>,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `program args` through `launcher` under `policy` for at most
/// `wall`.
pub fn run(
    launcher: &Sandbox,
    policy: &Policy,
    program: &str,
    args: &[&str],
    wall: Duration,
) -> Outcome {
    let mut inner = Command::new(program);
    inner.args(args);
    let mut command = launcher.wrap(inner, policy);
    let finished = run_limited(&mut command, wall, 1 << 20, 1 << 20).expect("starts");
    Outcome {
        ended: finished.status.map(|s| launcher.ended(s)),
        stdout: String::from_utf8_lossy(finished.stdout.bytes()).into_owned(),
        stderr: String::from_utf8_lossy(finished.stderr.bytes()).into_owned(),
    }
}

/// A shell script run by `/bin/sh -c` through `launcher`.
pub fn sh(launcher: &Sandbox, policy: &Policy, script: &str) -> Outcome {
    run(
        launcher,
        policy,
        "/bin/sh",
        &["-c", script],
        Duration::from_secs(60),
    )
}

/// A Python program run by `python3 -c` through `launcher`.
pub fn python(launcher: &Sandbox, policy: &Policy, program: &str) -> Outcome {
    run(
        launcher,
        policy,
        "python3",
        &["-c", program],
        Duration::from_secs(60),
    )
}

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .canonicalize()
        .unwrap()
}
