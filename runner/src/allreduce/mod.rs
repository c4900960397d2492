//! `cuda-runner allreduce`: an f32-sum all-reduce over the GPUs of this
//! machine (k = 1, 2, ...), one process driving every rank, swept over
//! message sizes, for NCCL ([`nccl`], out of place and in place) and the
//! book's one-shot and two-shot kernels ([`ours`]). Every implementation
//! at every size ([`sweep`]) is first run once and every rank's output
//! checked against the float64 sum of all ranks' inputs ([`buffers`]),
//! then timed ([`timing`]). The report names every GPU ([`ranks`]) and
//! the link between them ([`topology`]). The CUDA-free parts (sizes,
//! inputs, tolerance, bandwidths, report) are the core's `allreduce`.

mod buffers;
mod nccl;
pub mod nccl_library;
mod ours;
mod ranks;
mod sweep;
mod timing;
mod topology;

use anyhow::{Context, Result, bail};
use buffers::{Buffers, Staging};
use cuda_measured_core::allreduce::implementations::Implementation;
use cuda_measured_core::allreduce::report::{
    Inputs, Link, Method, Report, Skipped, Software, Tolerance,
};
use cuda_measured_core::allreduce::timing::{MAX_REPS, QUEUE_BUDGET, SAMPLE_TARGET_US};
use cuda_measured_core::allreduce::{
    MAX_RANKS, MULTICAST_OFF, bandwidth, inputs, report, sizes, tolerance,
};
use cuda_measured_core::method::{POLICY, Policy};
use std::collections::BTreeMap;
use sweep::Sweep;

/// What to sweep.
#[derive(Debug, Clone)]
pub struct Options {
    /// GPUs to use (default: every visible one).
    pub gpus: Option<usize>,
    /// Message sizes, bytes.
    pub sizes: Vec<u64>,
    /// The all-reduces to run.
    pub implementations: Vec<Implementation>,
    /// The run's seed.
    pub seed: u64,
    /// The sampling time-out per implementation and size, seconds.
    pub timeout_s: f64,
    /// GPU time before the stop rules may end sampling, seconds.
    pub min_gpu_s: f64,
}

/// The method, in the report's words.
const METHOD: &str = "hot: per sample, every rank's stream is held by a blocking kernel while the host queues a start event, reps back-to-back all-reduces and a stop event on every rank; one host write releases all ranks (the common start); the collective's sample time is the slowest rank's (stop - start) / reps; warm-up first, then the method's stop rule (>= 10 samples, noise target, time-out); samples taken while any rank's SM clock was under the throttle fraction are dropped; every output is checked once before timing";

/// Switches NVLink multicast off in this process's environment before
/// anything starts NCCL (children inherit it); returns what it changed.
/// Call it while the process has one thread.
pub fn multicast_off() -> Vec<String> {
    let mut changed = Vec::new();
    for (name, value) in MULTICAST_OFF {
        let old = std::env::var(name).ok();
        if old.as_deref() != Some(value) {
            if let Some(old) = old {
                changed.push(format!("{name} was {old}, set to {value}"));
            }
            // SAFETY: called from `main` before any thread is started, so
            // nothing reads the environment concurrently.
            unsafe { std::env::set_var(name, value) };
        }
    }
    changed
}

/// Runs the sweep and returns its report. The caller has called
/// [`multicast_off`] and, when NCCL is wanted,
/// [`nccl_library::ensure_loadable`].
pub fn run(options: &Options) -> Result<Report> {
    let wants_nccl = options.implementations.iter().any(|i| i.uses_nccl());
    let wants_peers = options.implementations.iter().any(|i| i.uses_peer_access());
    let count = match options.gpus {
        Some(0) => bail!("--gpus 0: an all-reduce needs at least one GPU"),
        Some(k) => k,
        None => cudarc::driver::CudaContext::device_count().context("counting the GPUs")? as usize,
    };
    if count == 0 {
        bail!("no GPU is visible");
    }
    if wants_peers && count > MAX_RANKS {
        bail!(
            "the one-shot and two-shot kernels hold at most {MAX_RANKS} ranks; pass --gpus {MAX_RANKS} or fewer"
        );
    }
    let ranks = ranks::open(count)?;
    let can = ranks::peer_access(&ranks)?;
    if wants_peers {
        ranks::enable_peer_access(&ranks, &can)?;
    }
    let nccl = wants_nccl.then(|| nccl::Nccl::init(&ranks)).transpose()?;
    let one_shot = wants(options, Implementation::OneShot)
        .then(|| ours::Ours::new(&ranks, ours::Shot::One))
        .transpose()?;
    let two_shot = wants(options, Implementation::TwoShot)
        .then(|| ours::Ours::new(&ranks, ours::Shot::Two))
        .transpose()?;
    let mut timer = timing::Timer::new(&ranks)?;
    let mut staging = Staging::new(&ranks[0].ctx)?;
    let seeds = inputs::rank_seeds(options.seed, count);
    let tol = tolerance::tolerance(count, inputs::RANGE);
    let policy = cuda_measured_core::allreduce::timing::policy(
        &POLICY,
        options.timeout_s,
        options.min_gpu_s,
    );
    let runs = Sweep {
        ranks: &ranks,
        seeds: &seeds,
        tol,
        policy: &policy,
        nccl: nccl.as_ref(),
        one_shot: one_shot.as_ref(),
        two_shot: two_shot.as_ref(),
    };

    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut aborted = None;
    'sizes: for &bytes in &options.sizes {
        if let Err(no_room) = sizes::fits(bytes, ranks::least_free(&ranks)?) {
            eprintln!("[allreduce] {no_room}");
            skipped.push(Skipped {
                bytes,
                reason: no_room.to_string(),
            });
            continue;
        }
        let bufs = match Buffers::new(&ranks, bytes / 4) {
            Ok(bufs) => bufs,
            Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let reason = format!(
                    "skipped {}: out of memory allocating the buffers",
                    sizes::format_bytes(bytes)
                );
                eprintln!("[allreduce] {reason}");
                skipped.push(Skipped { bytes, reason });
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        bufs.fill_inputs(&ranks, &seeds, &mut staging)?;
        for &implementation in &options.implementations {
            let (row, fault) = runs.row(implementation, &bufs, &mut timer, &mut staging);
            println!("{}", row.line());
            rows.push(row);
            if let Some(fault) = fault {
                aborted = Some(fault);
                break 'sizes;
            }
        }
        ranks::synchronize(&ranks)?;
    }

    let facts = crate::device::facts(&ranks[0].ctx)?;
    let topo = topology::nvidia_smi_topo();
    Ok(Report {
        schema: report::SCHEMA_VERSION,
        measured_at: cuda_measured_core::record::now_rfc3339(),
        runner: env!("CARGO_PKG_VERSION").to_string(),
        kernels_key: Some(cuda_measured_core::allreduce::kernels::kernels_key(&[
            ours::Shot::One.source(),
            ours::Shot::Two.source(),
        ])),
        ranks: count,
        gpus: ranks.iter().map(|r| r.gpu.clone()).collect(),
        link: Link {
            peer_access: can,
            nvidia_smi_topo: topo.as_ref().ok().cloned(),
            nvidia_smi_topo_error: topo.err().map(|e| e.to_string()),
        },
        software: Software {
            driver: facts.driver,
            cuda_driver_api: facts.cuda_driver_api,
            nvrtc: facts.nvrtc,
            nccl: nccl.as_ref().map(|n| n.version.clone()),
            nccl_library: nccl.as_ref().and_then(|_| nccl_library::loaded_file()),
        },
        environment: environment(),
        method: method(&policy),
        inputs: Inputs {
            dtype: "f32".into(),
            op: "sum".into(),
            seed: options.seed,
            rank_seeds: seeds,
            generator: inputs::DESCRIPTION.into(),
            range: inputs::RANGE,
        },
        tolerance: Tolerance {
            formula: tolerance::FORMULA.into(),
            abs: tol,
        },
        busbw_note: (count == 1).then(|| bandwidth::ONE_RANK_NOTE.to_string()),
        skipped,
        rows,
        aborted,
    })
}

fn wants(options: &Options, implementation: Implementation) -> bool {
    options.implementations.contains(&implementation)
}

/// The variables that steer the collective, as this process has them.
fn environment() -> BTreeMap<String, String> {
    std::env::vars()
        .filter(|(name, _)| {
            name.starts_with("NCCL_")
                || name == "CUDA_VISIBLE_DEVICES"
                || MULTICAST_OFF.iter().any(|(n, _)| n == name)
        })
        .collect()
}

fn method(policy: &Policy) -> Method {
    Method {
        description: METHOD.into(),
        sample_target_us: SAMPLE_TARGET_US,
        max_reps: MAX_REPS,
        queue_budget: QUEUE_BUDGET,
        min_samples: policy.min_samples,
        target_noise: policy.target_noise,
        min_gpu_s: policy.min_gpu_s,
        timeout_s: policy.timeout_s,
        throttle_fraction: policy.throttle_fraction,
    }
}
