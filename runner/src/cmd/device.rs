//! `cuda-runner device`: print the GPU's facts, or how many GPUs this
//! process sees.

use anyhow::{Context, Result, bail};
use cuda_runner::device;

/// Arguments of `device`.
#[derive(clap::Args)]
pub struct Args {
    /// As JSON.
    #[arg(long)]
    pub json: bool,
    /// Print only how many GPUs this process sees (a session measures
    /// on each of them side by side).
    #[arg(long, conflicts_with = "json")]
    pub count: bool,
}

/// Prints the count (`--count`) or GPU 0's facts.
pub fn execute(args: Args) -> Result<()> {
    if args.count {
        device_count()
    } else {
        device_facts(args.json)
    }
}

fn device_count() -> Result<()> {
    if !device::driver_present() {
        bail!("no CUDA driver (libcuda.so) on this machine");
    }
    println!("{}", device::count().context("counting the GPUs")?);
    Ok(())
}

fn device_facts(json: bool) -> Result<()> {
    if !device::driver_present() {
        bail!("no CUDA driver (libcuda.so) on this machine");
    }
    let (_ctx, facts) = device::open().context("opening GPU 0")?;
    if json {
        println!("{}", serde_json::to_string(&facts)?);
    } else {
        println!("{facts:#?}");
    }
    Ok(())
}
