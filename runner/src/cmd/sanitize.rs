//! `cuda-runner sanitize PATH --size N`: run one example under NVIDIA's
//! compute-sanitizer at one size (its launches once) and write what the
//! check found to results/sanitizer/<id>/<check>-<n>.json, where
//! `{{#sanitizer}}` reads it.

use super::resolve::{one_example, parse_size, results_file, write_json};
use anyhow::Result;
use std::path::PathBuf;

/// Arguments of `sanitize`.
#[derive(clap::Args)]
pub struct Args {
    /// The example's `.cu` file.
    pub path: PathBuf,
    /// The size to run (`2^22`).
    #[arg(long)]
    pub size: String,
    /// The check: racecheck, memcheck, synccheck or initcheck.
    #[arg(long, default_value = "racecheck")]
    pub check: String,
    /// The compute-sanitizer executable.
    #[arg(long, default_value = "compute-sanitizer")]
    pub sanitizer: PathBuf,
}

/// Runs the check and stores its report beside the book's other results.
pub fn execute(args: Args) -> Result<()> {
    let (path, check) = (&args.path, args.check.as_str());
    let example = one_example(path)?;
    let n = parse_size(&example, &args.size)?;
    let report = cuda_runner::sanitize::run(&example, path, n, check, &args.sanitizer)?;
    let out = results_file(
        path,
        &cuda_runner::sanitizer::relative_path(&example.id, check, n),
    )?;
    write_json(&out, &report)?;
    println!(
        "{} of {} at {n}: {} error(s), {} warning(s) -> {}",
        check,
        example.id,
        report.errors,
        report.warnings,
        out.display()
    );
    Ok(())
}
