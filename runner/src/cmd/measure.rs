//! `cuda-runner measure --job FILE --out OUT` (hidden): the child-process
//! entry that measures one job and writes its record and raw samples as
//! JSON to OUT (stdout is left to the kernel's printf).

use anyhow::{Context, Result};
use cuda_runner::{execute as run, isolate};
use std::path::PathBuf;

/// Arguments of `measure`.
#[derive(clap::Args)]
pub struct Args {
    /// The job file written by the parent.
    #[arg(long)]
    pub job: PathBuf,
    /// Where the result goes.
    #[arg(long)]
    pub out: PathBuf,
}

/// Measures the job's example and writes what came of it to `--out`.
pub fn execute(args: Args) -> Result<()> {
    let (job, out) = (&args.job, &args.out);
    let text =
        std::fs::read_to_string(job).with_context(|| format!("reading {}", job.display()))?;
    let job: isolate::OwnedJob = serde_json::from_str(&text).context("parsing the job")?;
    let settings = run::Settings::from_env();
    let measured = run::run_example(
        &job.example,
        &job.key,
        job.process,
        job.processes,
        &settings.with_seed(job.seed),
    );
    std::fs::write(out, serde_json::to_vec(&measured)?)
        .with_context(|| format!("writing {}", out.display()))
}
