//! `cuda-runner plan PATH --size N`: print an example's launches at one
//! size as JSON lines, resolved for the book's target GPU (or the SM count
//! given).

use super::resolve::{one_example, parse_size};
use anyhow::Result;
use cuda_runner::launch_plan;
use std::path::PathBuf;

/// Arguments of `plan`.
#[derive(clap::Args)]
pub struct Args {
    /// The example's `.cu` file.
    pub path: PathBuf,
    /// The size (`2^22`).
    #[arg(long)]
    pub size: String,
    /// The SM count to resolve `sms` with (default: the target GPU's).
    #[arg(long)]
    pub sms: Option<u32>,
}

/// Prints one JSON line per launch: kernel, grid, block, dynamic shared
/// bytes and arguments.
pub fn execute(args: Args) -> Result<()> {
    let example = one_example(&args.path)?;
    let n = parse_size(&example, &args.size)?;
    let sms = args
        .sms
        .unwrap_or(cuda_runner::limits::KnownGpu::target().sm_count);
    // Each value of a sweep has its own plan; its lines carry the value.
    for (value, variant) in example.variants() {
        let decl = &variant.declaration;
        let shape = launch_plan::shape(decl, n).map_err(|e| anyhow::anyhow!(e.at(&example)))?;
        let plan = launch_plan::resolve_shape(decl, shape, sms)
            .map_err(|e| anyhow::anyhow!(e.at(&example)))?;
        for l in &plan.launches {
            let mut line = serde_json::json!({
                "example": example.id,
                "key": cuda_runner::key::example_key(&example),
                "kernel": l.kernel,
                "grid": l.grid,
                "block": l.block,
                "shared": l.shared,
                "args": l.args,
            });
            if let Some(v) = &value {
                line["sweep"] = serde_json::json!(v);
            }
            println!("{line}");
        }
    }
    Ok(())
}
