//! `cuda-runner profile PATH --size N`: profile one example with Nsight
//! Compute at one size (its launches run once, clocks not locked) and write
//! its counters to results/profile/<id>.json, where `{{#profile}}` reads
//! them.

use super::resolve::{one_example, parse_size, results_file, write_json};
use anyhow::{Context, Result, bail};
use cuda_runner::execute::GPU_LINE;
use cuda_runner::key;
use cuda_runner::profile::{self, Profile};
use std::path::PathBuf;

/// Arguments of `profile`.
#[derive(clap::Args)]
pub struct Args {
    /// The example's `.cu` file.
    pub path: PathBuf,
    /// The size to profile (`2^24`; the row length for a row-wise
    /// problem).
    #[arg(long)]
    pub size: String,
    /// Where the profile goes (default: the book's
    /// results/profile/<id>.json).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The Nsight Compute executable.
    #[arg(long, default_value = "ncu")]
    pub ncu: PathBuf,
    /// Also collect the warp stall reasons (Nsight Compute's
    /// WarpStateStats counters), which `{{#profile ID stalls SIZE}}` shows.
    #[arg(long)]
    pub stalls: bool,
}

/// Runs the example's launches once under Nsight Compute (through
/// `launch-once`) and stores the counters of [`profile::METRICS`], with
/// `--stalls` also those of [`profile::stall_metrics`].
pub fn execute(args: Args) -> Result<()> {
    let (path, size, ncu) = (&args.path, args.size.as_str(), &args.ncu);
    let example = one_example(path)?;
    let size_read = parse_size(&example, size)?;
    let key = key::example_key(&example);
    let version = std::process::Command::new(ncu)
        .arg("--version")
        .output()
        .with_context(|| {
            format!(
                "running {} --version: is Nsight Compute installed?",
                ncu.display()
            )
        })?;
    let tool = profile::tool_version("ncu", &String::from_utf8_lossy(&version.stdout));
    let mut metrics: Vec<String> = profile::METRICS
        .iter()
        .map(|(_, full)| full.to_string())
        .collect();
    if args.stalls {
        metrics.extend(profile::stall_metrics());
    }
    let run = std::process::Command::new(ncu)
        .args(["--clock-control", "none", "--csv", "--metrics"])
        .arg(metrics.join(","))
        .arg(std::env::current_exe()?)
        .arg("launch-once")
        .arg(path)
        .args(["--size", size])
        .output()
        .with_context(|| format!("running {}", ncu.display()))?;
    let stdout = String::from_utf8_lossy(&run.stdout);
    if !run.status.success() {
        bail!(
            "{} failed ({}): {}{}",
            ncu.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr),
            stdout
        );
    }
    let gpu = stdout
        .lines()
        .find_map(|l| l.strip_prefix(GPU_LINE))
        .context("the profiled run did not say which GPU it ran on")?
        .trim()
        .to_string();
    let kernels = profile::parse_ncu_csv(&stdout)?;
    if kernels.is_empty() {
        bail!(
            "Nsight Compute profiled no kernel of {}: {stdout}",
            example.id
        );
    }
    let record = Profile {
        schema: profile::SCHEMA_VERSION,
        example: example.id.clone(),
        key,
        n: cuda_runner::size::Size(size_read.n_value()),
        dims: (!size_read.is_flat()).then_some(size_read),
        gpu,
        tool,
        measured_at: cuda_runner::record::now_rfc3339(),
        kernels,
    };
    let out = match args.out {
        Some(p) => p,
        None => results_file(
            path,
            &profile::relative_path(&example.id, size_read, &record.gpu),
        )?,
    };
    write_json(&out, &record)?;
    println!(
        "profiled {} at {size_read}: {} kernel(s) -> {}",
        example.id,
        record.kernels.len(),
        out.display()
    );
    Ok(())
}
