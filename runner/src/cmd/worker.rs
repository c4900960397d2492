//! `cuda-runner worker --sentinel NONCE` (hidden): a warm measuring
//! process (core's `workers`). It opens the GPU once, then measures job
//! after job read from stdin, one line of JSON each, as `measure` measures
//! one: the result goes to the job's file, the kernel's device `printf`
//! output to stdout, followed by the sentinel line that ends the job. It
//! ends when stdin closes, and after a job that did not pass or answer
//! wrong (a fault can leave the context unusable; the parent starts a
//! fresh worker for the next job).

use anyhow::{Context, Result};
use cuda_measured_core::workers::{WorkerJob, keeps_worker, sentinel};
use cuda_runner::execute::{self as run, Device};
use cuda_runner::isolate::OwnedJob;
use std::io::{BufRead, Write};

/// Arguments of `worker`.
#[derive(clap::Args)]
pub struct Args {
    /// The line that ends each job's output on stdout.
    #[arg(long)]
    pub sentinel: String,
}

/// Measures the jobs of stdin until it closes.
pub fn execute(args: Args) -> Result<()> {
    let settings = run::Settings::from_env();
    let end = sentinel(&args.sentinel);
    let mut device: Option<Device> = None;
    for line in std::io::stdin().lock().lines() {
        let line = line.context("reading a job")?;
        if line.trim().is_empty() {
            continue;
        }
        let WorkerJob { job, out }: WorkerJob<OwnedJob> =
            serde_json::from_str(&line).context("parsing a job")?;
        let measured = run::run_example_keeping(
            &mut device,
            &job.example,
            &job.key,
            job.process,
            job.processes,
            &settings.with_seed(job.seed),
        );
        let keep = keeps_worker(measured.record.status);
        std::fs::write(&out, serde_json::to_vec(&measured)?)
            .with_context(|| format!("writing {}", out.display()))?;
        // Everything the job's kernels printed, then the end of the job.
        if let Some(device) = &device {
            let _ = device.synchronize();
        }
        // SAFETY: fflush(NULL) flushes every C stream; the driver's printf
        // output goes through C's stdout.
        unsafe { libc::fflush(std::ptr::null_mut()) };
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(end.as_bytes())?;
        stdout.flush()?;
        if !keep {
            break;
        }
    }
    Ok(())
}
