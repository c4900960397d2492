//! `cuda-runner allreduce`: all-reduce (f32 sum) across this machine's
//! GPUs, one process driving every rank: NCCL and the book's kernels, each
//! checked against the float64 sum, then timed per message size; writes a
//! JSON report.

use super::resolve::write_json;
use anyhow::{Context, Result, bail};
use cuda_measured_core::allreduce::{implementations, report, sizes as sweep};
use cuda_runner::allreduce::{self, nccl_library};
use cuda_runner::device;
use std::path::{Path, PathBuf};

/// The switches of `cuda-runner allreduce`.
#[derive(clap::Args)]
pub struct Args {
    /// Ranks: the first K visible GPUs (default: every visible GPU).
    #[arg(long)]
    pub gpus: Option<usize>,
    /// Message sizes in bytes: byte counts (1000, 64KiB, 2^20) and
    /// ranges of powers of two (8..256MiB), comma-separated (default:
    /// 8..4GiB). Sizes that do not fit in a GPU's memory are skipped.
    #[arg(long)]
    pub sizes: Option<String>,
    /// Implementations: nccl, nccl-inplace, one-shot, two-shot, or all.
    #[arg(long, default_value = "all")]
    pub impls: String,
    /// The seed every rank's input is drawn from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Sampling time-out per implementation and size, seconds.
    #[arg(long, default_value_t = cuda_runner::method::POLICY.timeout_s)]
    pub timeout_s: f64,
    /// GPU time before sampling may stop, seconds.
    #[arg(long, default_value_t = cuda_runner::method::POLICY.min_gpu_s)]
    pub min_gpu_s: f64,
    /// Where the report goes (default:
    /// results/allreduce/<model>-<k>gpu.json, run in the book's root).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs the sweep and writes its report, failing after the write when the
/// sweep was cut short.
pub fn execute(args: Args) -> Result<()> {
    // First, while this process has one thread: NCCL reads it when it starts.
    for note in allreduce::multicast_off() {
        eprintln!("[allreduce] {note}");
    }
    let implementations = implementations::parse_list(&args.impls)?;
    let sizes = match args.sizes.as_deref() {
        Some(text) => sweep::parse_list(text).with_context(|| format!("--sizes {text}"))?,
        None => sweep::default_sweep(),
    };
    if args.out.is_none() && !Path::new("book.toml").is_file() {
        bail!(
            "no book.toml here: run `cuda-runner allreduce` in the book's root, or pass --out FILE"
        );
    }
    if implementations.iter().any(|i| i.uses_nccl()) {
        nccl_library::ensure_loadable()?;
    }
    if !device::driver_present() {
        bail!("no CUDA driver (libcuda.so) on this machine");
    }
    let report = allreduce::run(&allreduce::Options {
        gpus: args.gpus,
        sizes,
        implementations,
        seed: args.seed,
        timeout_s: args.timeout_s,
        min_gpu_s: args.min_gpu_s,
    })?;
    let out = args.out.unwrap_or_else(|| {
        Path::new("results").join(report::relative_path(&report.gpus[0].name, report.ranks))
    });
    write_json(&out, &report)?;
    println!("report -> {}", out.display());
    if let Some(why) = &report.aborted {
        bail!("{why}");
    }
    Ok(())
}
