//! Runs an example in child `cuda-runner measure` processes with a time
//! limit, so that a kernel that faults, hangs or kills its process becomes a
//! stored result with its log, and the next example still runs. The method
//! measures every example in several processes one after another and pools
//! their samples ([`crate::pool`]).

use crate::example::Example;
use crate::pool::{self, Measured};
use crate::record::{GpuFacts, Record, Status};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// Default time limit of one example, when its header sets none.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(120);

/// The time limit of an example: its header's `timeout_s`, else `fallback`.
pub fn limit_for(example: &Example, fallback: Duration) -> Duration {
    example
        .declaration
        .timeout_s
        .map(Duration::from_secs)
        .unwrap_or(fallback)
}

/// Measures `example` in [`crate::diagnostics::processes`] child processes
/// of `runner_exe`, one after another, and returns the pooled record. Never
/// fails: every way a child can end is a [`Status`], and the first child
/// that fails to run every size (compile error, launch error, fault, time
/// limit) ends the example with its record. `limit` applies to each child.
/// `gpu` is the device a [`probe_gpu`] found: a child stopped at its time
/// limit never reports the GPU it ran on, so its record names this one.
pub fn measure_isolated(
    runner_exe: &Path,
    example: &Example,
    key: &str,
    limit: Duration,
    gpu: Option<&GpuFacts>,
) -> Record {
    let started = Instant::now();
    let processes = crate::diagnostics::processes();
    let mut runs = Vec::new();
    let mut failed = None;
    for process in 0..processes {
        let job = Job {
            example,
            key,
            process,
            processes,
        };
        match run_child(runner_exe, &job, limit) {
            Ok(m) if pool::is_final_failure(m.record.status) => {
                failed = Some(m.record);
                break;
            }
            Ok(m) => runs.push(m),
            Err((status, message, log)) => {
                failed = Some(Record::failure(example, key, status, message, log));
                break;
            }
        }
    }
    let mut record = match failed {
        Some(r) => r,
        None => pool::pool(runs),
    };
    if record.gpu.is_none() {
        record.gpu = gpu.cloned();
    }
    if record.wall_s == 0.0 {
        record.wall_s = started.elapsed().as_secs_f64();
    }
    record
}

type ChildFailure = (Status, String, String);

fn run_child(runner_exe: &Path, job: &Job<'_>, limit: Duration) -> Result<Measured, ChildFailure> {
    let job = serde_json::to_vec(job).expect("jobs serialise");
    let mut job_file = tempfile::NamedTempFile::new().map_err(|e| spawn_failure(runner_exe, e))?;
    job_file
        .write_all(&job)
        .map_err(|e| spawn_failure(runner_exe, e))?;
    let mut child = Command::new(runner_exe)
        .arg("measure")
        .arg("--job")
        .arg(job_file.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| spawn_failure(runner_exe, e))?;
    // Drain both pipes on threads so a chatty child cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let waited = child.wait_timeout(limit);
    let exit = match waited {
        Ok(Some(status)) => Some(status),
        Ok(None) | Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    };
    let out = out_thread.join().unwrap_or_default();
    let err = err_thread.join().unwrap_or_default();
    let Some(exit) = exit else {
        return Err((
            Status::Timeout,
            format!(
                "did not finish within {} s and was stopped; a kernel that never ends (a loop whose exit no thread reaches, a barrier some threads skip) looks like this",
                limit.as_secs()
            ),
            err,
        ));
    };
    match serde_json::from_str::<Measured>(out.trim()) {
        Ok(measured) => Ok(measured),
        Err(_) => Err((
            Status::Fault,
            format!("the measuring process ended ({exit}) without a result"),
            format!("{err}{out}"),
        )),
    }
}

fn spawn_failure(runner_exe: &Path, e: std::io::Error) -> ChildFailure {
    (
        Status::Fault,
        format!(
            "could not start `{} measure` ({e}); build it with `cargo build --release -p cuda-runner` or set `runner` in [preprocessor.cuda]",
            runner_exe.display()
        ),
        String::new(),
    )
}

/// The job a child reads: the example, its key, and which of how many
/// processes the child is.
#[derive(serde::Serialize)]
struct Job<'a> {
    example: &'a Example,
    key: &'a str,
    process: usize,
    processes: usize,
}

/// The job as the child parses it.
#[derive(serde::Deserialize)]
pub struct OwnedJob {
    /// The example.
    pub example: Example,
    /// Its key.
    pub key: String,
    /// This child's index, from 0.
    pub process: usize,
    /// How many children measure the example.
    pub processes: usize,
}

/// Asks `cuda-runner device --json` for the GPU's facts; `None` when there
/// is no usable GPU (no driver, no device, or the probe failed).
pub fn probe_gpu(runner_exe: &Path) -> Option<GpuFacts> {
    let mut child = Command::new(runner_exe)
        .args(["device", "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let status = child.wait_timeout(Duration::from_secs(60)).ok().flatten();
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    if !status?.success() {
        return None;
    }
    serde_json::from_str(out.trim()).ok()
}
