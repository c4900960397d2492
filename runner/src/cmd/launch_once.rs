//! `cuda-runner launch-once PATH --size N` (hidden): the entry `profile`
//! runs under Nsight Compute, the example's launches once at one size.

use super::resolve::{one_example, parse_size};
use anyhow::Result;
use cuda_runner::execute::{self as run, GPU_LINE};
use std::path::PathBuf;

/// Arguments of `launch-once`.
#[derive(clap::Args)]
pub struct Args {
    /// The example's `.cu` file.
    pub path: PathBuf,
    /// The size.
    #[arg(long)]
    pub size: String,
}

/// Launches the example once and names the GPU it ran on.
pub fn execute(args: Args) -> Result<()> {
    let example = one_example(&args.path)?;
    let size = parse_size(&example, &args.size)?;
    let gpu = run::launch_once(&example, size)?;
    // Read back by `profile` from Nsight Compute's output.
    println!("{GPU_LINE}{gpu}");
    Ok(())
}
