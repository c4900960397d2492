//! `cuda-runner repeatability FIRST SECOND`: compare two measuring runs of
//! the same book (folders of records) and print the repeatability report
//! as JSON.

use anyhow::Result;
use std::path::PathBuf;

/// Arguments of `repeatability`.
#[derive(clap::Args)]
pub struct Args {
    /// Records of the first run.
    pub first: PathBuf,
    /// Records of the second run.
    pub second: PathBuf,
}

/// Prints the report comparing the two runs.
pub fn execute(args: Args) -> Result<()> {
    let report = cuda_runner::repeatability::compare(&args.first, &args.second)?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
