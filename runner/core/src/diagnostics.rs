//! Tools for studying the method itself, off by default: the raw samples
//! behind each median, and an override of how many processes measure each
//! example. Both are set in the environment so that a measuring session
//! can switch them on without a rebuild; the front ends read them once, at
//! their edge ([`crate::session::Config::from_env`], the runner's `measure`
//! command), and pass them down. Records say how many processes
//! they pooled, but the count is not part of a record's key: an override is
//! for experiments in `bench/tuning/`, never for results that are committed.

use crate::method::POLICY;
use crate::size::Size;
use serde::Serialize;
use std::path::Path;

/// Folder that receives one JSON file of raw samples per timed size and
/// process.
pub const ENV_SAMPLES_DIR: &str = "CUDA_MEASURED_SAMPLES_DIR";
/// Overrides [`crate::method::Policy::processes`].
pub const ENV_PROCESSES: &str = "CUDA_MEASURED_PROCESSES";

/// Processes that measure each example, given [`ENV_PROCESSES`]'s value
/// (`None`, or not a number: the method's own count).
pub fn processes(value: Option<&str>) -> usize {
    value
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(POLICY.processes)
        .max(1)
}

#[derive(Serialize)]
struct Dump<'a> {
    example: &'a str,
    n: Size,
    process: usize,
    times_us: &'a [f64],
}

/// Writes the raw samples of one size in one process into `dir` (the
/// value of [`ENV_SAMPLES_DIR`]) when there is one; a failure to write is
/// reported on stderr and never fails the example.
pub fn dump_samples(dir: Option<&Path>, example: &str, n: u64, process: usize, times_us: &[f64]) {
    let Some(dir) = dir else {
        return;
    };
    let dump = Dump {
        example,
        n: Size(n),
        process,
        times_us,
    };
    let name = format!("{}-{n}-p{process}.json", example.replace('/', "__"));
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        std::fs::write(
            dir.join(&name),
            serde_json::to_vec(&dump).expect("samples serialise"),
        )
    });
    if let Err(e) = written {
        eprintln!("[cuda-runner] could not write samples {name}: {e}");
    }
}
