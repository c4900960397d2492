//! Tools for studying the method itself, off by default: the raw samples
//! behind each median, and an override of how many processes measure each
//! example. Both are read from the environment so that a measuring session
//! can switch them on without a rebuild. Records say how many processes
//! they pooled, but the count is not part of a record's key: an override is
//! for experiments in `bench/tuning/`, never for results that are committed.

use crate::method::POLICY;
use crate::size::Size;
use serde::Serialize;
use std::path::PathBuf;

/// Folder that receives one JSON file of raw samples per timed size and
/// process.
pub const ENV_SAMPLES_DIR: &str = "CUDA_MEASURED_SAMPLES_DIR";
/// Overrides [`crate::method::Policy::processes`].
pub const ENV_PROCESSES: &str = "CUDA_MEASURED_PROCESSES";

/// Processes that measure each example.
pub fn processes() -> usize {
    std::env::var(ENV_PROCESSES)
        .ok()
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

/// Writes the raw samples of one size in one process when
/// [`ENV_SAMPLES_DIR`] is set; a failure to write is reported on stderr and
/// never fails the example.
pub fn dump_samples(example: &str, n: u64, process: usize, times_us: &[f64]) {
    let Some(dir) = std::env::var_os(ENV_SAMPLES_DIR).map(PathBuf::from) else {
        return;
    };
    let dump = Dump {
        example,
        n: Size(n),
        process,
        times_us,
    };
    let name = format!("{}-{n}-p{process}.json", example.replace('/', "__"));
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::write(
            dir.join(&name),
            serde_json::to_vec(&dump).expect("samples serialise"),
        )
    });
    if let Err(e) = written {
        eprintln!("[cuda-runner] could not write samples {name}: {e}");
    }
}
