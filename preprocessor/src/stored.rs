//! Reports stored next to the examples' records, written by a measuring
//! session (bench/gpu-session.sh) rather than by the preprocessor: the
//! comparison with vendor libraries (`results/peers/<problem>.json`), the
//! repeatability report (`results/repeatability.json`) and the profiles;
//! and the SASS listings `scripts/sass` writes without a GPU
//! (`results/sass/<id>.json`); what compute-sanitizer found
//! (`results/sanitizer/<id>/<check>-<n>.json`) and what the host programs
//! printed (`results/host/<id>/<language>.json`), with the host programs
//! themselves (under the book's root); and the all-reduce reports
//! `cuda-runner allreduce` writes on a machine with several GPUs
//! (`results/allreduce/<model>-<k>gpu.json`). Read on demand
//! by the directives that show them; a file that is absent or unreadable
//! is a reason, worded for the build log, not an error of the build.

use cuda_measured_core::{allreduce, host, peers, profile, repeatability, sanitizer, sass};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// How to measure a stored report again.
const REMEASURE: &str = "run bench/gpu-session.sh on a GPU machine";

/// How to make a SASS listing again.
pub const RELIST: &str = "run scripts/sass (no GPU needed) and commit results/sass/";

/// How to run compute-sanitizer again.
pub const RESANITIZE: &str =
    "run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine and commit results/sanitizer/";

/// How to run the host programs again.
pub const REHOST: &str =
    "run `bench/gpu-session.sh OUTDIR host` on a GPU machine and commit results/host/";

/// The command that makes the all-reduce report over `gpus` GPUs.
pub fn allreduce_command(gpus: usize) -> String {
    format!("cuda-runner allreduce --gpus {gpus}")
}

/// How to make the all-reduce report over `gpus` GPUs again.
pub fn reallreduce(gpus: usize) -> String {
    let machine = if gpus == 1 {
        "a GPU".to_string()
    } else {
        format!("{gpus} GPUs")
    };
    format!(
        "run `{}` in the book's root on a machine with {machine} and commit results/allreduce/",
        allreduce_command(gpus)
    )
}

/// The folder of stored reports (the results store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredReports {
    dir: PathBuf,
    shown: String,
    root: PathBuf,
}

impl StoredReports {
    /// Reports under `dir`, which messages show as `shown` (`results`);
    /// the book's root is taken to be the folder above `dir`.
    pub fn new(dir: &Path, shown: impl Into<String>) -> Self {
        StoredReports {
            dir: dir.to_path_buf(),
            shown: shown.into(),
            root: dir.parent().unwrap_or(dir).to_path_buf(),
        }
    }

    /// The same, with the book's root (where `bench/host/` is) at `root`.
    pub fn with_root(mut self, root: &Path) -> Self {
        self.root = root.to_path_buf();
        self
    }

    /// The comparison of `problem` with its peers, or why there is none.
    pub fn peers(&self, problem: &str) -> Result<peers::Report, String> {
        self.load(&format!("peers/{problem}.json"))
    }

    /// The Nsight Compute profile of example `id` at size `n` on the
    /// book's target GPU, or why there is none.
    pub fn profile(
        &self,
        id: &str,
        n: cuda_measured_core::size::Size,
    ) -> Result<profile::Profile, String> {
        let target = cuda_measured_core::limits::KnownGpu::target().name;
        self.load(&profile::relative_path(
            id,
            cuda_measured_core::dims::Dims::n(n.0),
            target,
        ))
    }

    /// The repeatability report, or why there is none.
    pub fn repeatability(&self) -> Result<repeatability::Report, String> {
        self.load("repeatability.json")
    }

    /// The all-reduce report over `gpus` GPUs of the book's target GPU
    /// model, or why there is none.
    pub fn allreduce(&self, gpus: usize) -> Result<allreduce::report::Report, String> {
        let target = cuda_measured_core::limits::KnownGpu::target().name;
        self.load_or(
            &allreduce::report::relative_path(target, gpus),
            &reallreduce(gpus),
        )
    }

    /// The SASS listing of example `id`, or why there is none.
    pub fn sass(&self, id: &str) -> Result<sass::Listing, String> {
        self.load_or(&sass::relative_path(id), RELIST)
    }

    /// What compute-sanitizer's `check` found in example `id` at size `n`,
    /// or why there is no report.
    pub fn sanitizer(
        &self,
        id: &str,
        check: &str,
        n: cuda_measured_core::size::Size,
    ) -> Result<sanitizer::Report, String> {
        self.load_file(
            &sanitizer::relative_path(id, check, cuda_measured_core::dims::Dims::n(n.0)),
            "not run",
            RESANITIZE,
        )
    }

    /// What the host program in `language` printed for example `id`, or
    /// why there is no record.
    pub fn host(&self, id: &str, language: &str) -> Result<host::Record, String> {
        self.load_file(&host::relative_path(id, language), "not run yet", REHOST)
    }

    /// The bytes of a file under the book's root (`bench/host/host_sum.cu`),
    /// or why they cannot be read.
    pub fn book_file(&self, rel: &str) -> Result<Vec<u8>, String> {
        std::fs::read(self.root.join(rel)).map_err(|e| format!("{rel} cannot be read ({e})"))
    }

    /// Whether the file `rel` of the store exists (readable or not).
    pub fn exists(&self, rel: &str) -> bool {
        self.dir.join(rel).exists()
    }

    /// `rel` as a message shows it: `results/peers/sum_f32.json`.
    pub fn shown(&self, rel: &str) -> String {
        if self.shown.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.shown)
        }
    }

    fn load<T: DeserializeOwned>(&self, rel: &str) -> Result<T, String> {
        self.load_or(rel, REMEASURE)
    }

    /// The file `rel`, or why not, ending with `fix`.
    fn load_or<T: DeserializeOwned>(&self, rel: &str, fix: &str) -> Result<T, String> {
        self.load_file(rel, "not measured", fix)
    }

    /// The file `rel`, or why not: `absent` (`not measured`) when it does
    /// not exist, ending with `fix`.
    fn load_file<T: DeserializeOwned>(
        &self,
        rel: &str,
        absent: &str,
        fix: &str,
    ) -> Result<T, String> {
        let shown = self.shown(rel);
        let text = match std::fs::read_to_string(self.dir.join(rel)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("{absent}: {shown} does not exist; {fix}"));
            }
            Err(e) => return Err(format!("{shown} cannot be read ({e}); {fix}")),
        };
        serde_json::from_str(&text)
            .map_err(|e| format!("{shown} is not a report this preprocessor reads ({e}); {fix}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Present reports load; absent and malformed ones give the file and the fix.
    #[test]
    fn reads_reports_or_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("peers")).unwrap();
        std::fs::write(dir.path().join("peers/bad.json"), "{\"schema\": 1}").unwrap();
        std::fs::write(
            dir.path().join("repeatability.json"),
            r#"{"gpu": "G", "measured_at": "2026-05-01T00:00:00Z", "rows": [],
                "max_abs_diff_pct_over_floor": 0.5, "goal_met": true}"#,
        )
        .unwrap();
        let stored = StoredReports::new(dir.path(), "results");
        assert!(stored.repeatability().unwrap().goal_met);
        let cases = [
            (
                stored.peers("sum_f32").unwrap_err(),
                "not measured: results/peers/sum_f32.json does not exist; run bench/gpu-session.sh",
            ),
            (
                stored.peers("bad").unwrap_err(),
                "results/peers/bad.json is not a report this preprocessor reads (missing field",
            ),
        ];
        for (got, want) in cases {
            assert!(got.starts_with(want), "{got}");
        }
    }
}
