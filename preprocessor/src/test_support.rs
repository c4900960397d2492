//! Shared test data: a kernel that resolves, records as the runner writes
//! them, and chapters and their catalog.

use crate::catalog::{Catalog, ChapterText};
use crate::config::Settings;
use crate::outcome::Outcome;
use crate::results::Results;
use crate::stored::StoredReports;
use cuda_measured_core::declaration::Expectation;
use cuda_measured_core::method::Ceilings;
use cuda_measured_core::record::{Record, Status};

/// A complete kernel file with its declaration header.
pub(crate) const KERNEL: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^28\"]\n[[launch]]\nkernel = \"tree\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\n// ANCHOR: body\nextern \"C\" __global__ void tree(const float* x, float* out, unsigned n) {}\n// ANCHOR_END: body\n";

/// A record as the runner writes it: passing records have no message or
/// log; failing ones have both, the log with a blank line and markup. Built
/// from JSON so that fields the runner adds with defaults need no edit here.
pub(crate) fn record(status: Status, expect: Expectation) -> Record {
    let failed = status != Status::Pass;
    let json = serde_json::json!({
        "schema": cuda_measured_core::record::SCHEMA_VERSION,
        "example": "r/tree",
        "key": "k1",
        "status": status,
        "expect": expect,
        "message": if failed { "sum off by 12.5" } else { "" },
        "log": if failed { "line one\n\nline <three>" } else { "" },
        "method_version": cuda_measured_core::METHOD_VERSION,
        "problem": "sum_f32 v1",
        "compile_options": ["-std=c++17"],
        "gpu": {
            "name": "NVIDIA H200",
            "compute_capability": "9.0",
            "sm_count": 132,
            "l2_bytes": 62_914_560u64,
            "memory_bytes": 151_397_597_184u64,
            "peak_gbs": 4800.0,
            "peak_source": "datasheet",
            "driver": "580.1",
            "cuda_driver_api": "13.0",
            "nvrtc": "13.0"
        },
        "measured_at": "2026-05-01T12:00:00Z",
        "wall_s": 3.5,
        "registers": [["tree", 32]],
        "sizes": [{
            "n": 1u64 << 28,
            "bytes": 1u64 << 30,
            "launches": ["tree: 528 x 512, 0 B shared"],
            "median_us": 251.24,
            "min_us": 250.0,
            "max_us": 260.0,
            "samples": 50,
            "rel_spread": 0.012,
            "gbs": 4275.4,
            "pct_peak": 89.07,
            "error": 3.1e-8,
            "tolerance": 1e-5,
            "pass": !failed
        }]
    });
    serde_json::from_value(json).expect("the test record matches the runner's schema")
}

/// A book folder holding `files` (path relative to the book, contents),
/// with default settings in frozen mode and without compiling (tests that
/// compile set a runner of their own).
pub(crate) fn settings_in(files: &[(&str, &str)]) -> (tempfile::TempDir, crate::config::Settings) {
    let dir = tempfile::tempdir().expect("temporary folder");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("files have a folder"))
            .expect("create folder");
        std::fs::write(path, text).expect("write file");
    }
    let config = mdbook_preprocessor::config::Config::default();
    let mut settings =
        crate::config::Settings::load(dir.path(), &config, |_| None).expect("default settings");
    settings.mode = crate::config::Mode::Frozen;
    settings.compile = false;
    (dir, settings)
}

/// A chapter at `path` (relative to `src/`) holding `content`.
pub(crate) fn chapter(path: &str, content: &str) -> ChapterText {
    ChapterText::new(path.into(), content.into())
}

/// The catalog of a book whose one chapter, `ch.md`, holds `text`.
pub(crate) fn catalog_of(settings: &Settings, text: &str) -> Catalog {
    Catalog::build(settings, &[chapter("ch.md", text)])
}

/// The first all-reduce report, made on one H200 (k = 1) on 2026-12-01,
/// kept as a fixture: it was written before reports carried the kernels'
/// key.
pub(crate) const ALLREDUCE_1GPU: &str =
    include_str!("../tests/fixtures/allreduce-1gpu-before-kernels-key.json");

/// A synthetic all-reduce report over two H200s (the integration test's
/// fixture), its kernels' key a placeholder.
pub(crate) const ALLREDUCE_2GPU: &str =
    include_str!("../tests/fixtures/allreduce/results/allreduce/nvidia-h200-2gpu.json");

/// Stand-ins for the book's `kernels/allreduce/*.cu`.
pub(crate) const ALLREDUCE_KERNELS: [(&str, &str); 2] = [
    (
        "kernels/allreduce/one_shot.cu",
        "extern \"C\" __global__ void allreduce_one_shot() {}\n",
    ),
    (
        "kernels/allreduce/two_shot.cu",
        "extern \"C\" __global__ void allreduce_reduce_scatter() {}\n",
    ),
];

/// A book of a swept example `s` (STRIDE over 1, 2, 4) and a plain one
/// `p`, the same kernel without the sweep.
pub(crate) fn swept_catalog() -> (tempfile::TempDir, Catalog) {
    let swept = "/*+++\nproblem = \"elementwise\"\nsizes = [\"2^20\"]\n[elementwise]\ninputs = [\"x\"]\noutput = \"y\"\nreference = \"x\"\n[sweep]\nSTRIDE = [1, 2, 4]\n[[launch]]\nkernel = \"k\"\ngrid = \"ceil_div(n, 256)\"\nblock = 256\nargs = [\"x\", \"y\", \"n\", \"STRIDE\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* y, unsigned n, unsigned s) {}\n";
    let plain = swept
        .replace("[sweep]\nSTRIDE = [1, 2, 4]\n", "")
        .replace(", \"STRIDE\"]", "]")
        .replace(", unsigned s)", ")");
    let (dir, settings) = settings_in(&[]);
    let text = format!("```cuda run id=s\n{swept}```\n\n```cuda run id=p\n{plain}```\n");
    let catalog = catalog_of(&settings, &text);
    (dir, catalog)
}

/// The key of [`ALLREDUCE_KERNELS`].
pub(crate) fn allreduce_kernels_key() -> String {
    cuda_measured_core::allreduce::kernels::kernels_key(&ALLREDUCE_KERNELS)
}

/// The report `text` with its kernels' key set to `key` (or removed).
pub(crate) fn allreduce_json(text: &str, key: Option<&str>) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(text).expect("a report as stored");
    match key {
        Some(key) => value["kernels_key"] = key.into(),
        None => {
            value
                .as_object_mut()
                .expect("a report is an object")
                .remove("kernels_key");
        }
    }
    value
}

/// A book with examples `fast` (fresh, with ceilings, a hot figure and
/// % of ceiling), `slow` (fresh, twice the time, none of those) and
/// `old` (stale), and an empty folder of stored reports.
pub(crate) struct Book {
    /// The book's folder.
    pub(crate) dir: tempfile::TempDir,
    /// Its examples.
    pub(crate) catalog: Catalog,
    /// Their outcomes.
    pub(crate) outcomes: Vec<Outcome>,
    /// Its stored reports.
    pub(crate) stored: StoredReports,
}

impl Book {
    pub(crate) fn new() -> Self {
        let (dir, settings) = settings_in(&[]);
        let text: String = ["fast", "slow", "old"]
            .iter()
            .map(|id| format!("```cuda run id={id}\n{KERNEL}```\n\n"))
            .collect();
        let catalog = catalog_of(&settings, &text);
        let plain = record(Status::Pass, Expectation::Pass);
        let mut fast = plain.clone();
        fast.sizes[0].pct_ceiling = Some(99.81);
        fast.sizes[0].hot_median_us = Some(239.31);
        fast.sizes[0].rel_spread = 0.0034;
        fast.sizes[0].samples = 45;
        fast.ceilings = Some(Ceilings {
            read_gbs: 4328.2,
            copy_gbs: 3936.5,
            launch_floor_us: 2.784,
            buffer_bytes: 1 << 30,
            named: Default::default(),
        });
        let mut slow = plain.clone();
        slow.sizes[0].median_us *= 2.0;
        slow.sizes[0].gbs /= 2.0;
        slow.sizes[0].pct_peak /= 2.0;
        let outcomes = vec![
            Outcome::Fresh(fast),
            Outcome::Fresh(slow),
            Outcome::Stale(plain),
        ];
        let stored = StoredReports::new(&settings.results, "results");
        Book {
            dir,
            catalog,
            outcomes,
            stored,
        }
    }

    pub(crate) fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    pub(crate) fn key_of(&self, id: &str) -> String {
        self.results().current(id).unwrap().0.to_string()
    }

    /// Stores a peers comparison of `ours` measured with `key`.
    pub(crate) fn store_peers(&self, problem: &str, ours: &str, key: &str) {
        let report = serde_json::json!({
            "schema": 1, "problem": "sum_f32", "ours_example": ours, "ours_key": key,
            "gpu": "NVIDIA H200", "peak_gbs": 4800.0, "ceilings": null, "versions": {},
            "measured_at": "2026-05-01T12:00:00Z", "rows": []
        });
        let path = self
            .dir
            .path()
            .join(format!("results/peers/{problem}.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, report.to_string()).unwrap();
    }
}

impl Book {
    /// Stores a profile of `id` measured with `key` at 2^28.
    pub(crate) fn store_profile(&self, id: &str, key: &str) {
        self.store_profile_metrics(
            id,
            key,
            serde_json::json!({"dram__throughput.avg.pct_of_peak_sustained_elapsed":
                {"unit": "%", "value": 96.94}}),
        );
    }

    /// Stores a profile of `id` at 2^28 with `key` whose one kernel has
    /// `metrics` (full name to `{"unit", "value"}`).
    pub(crate) fn store_profile_metrics(&self, id: &str, key: &str, metrics: serde_json::Value) {
        let profile = serde_json::json!({
            "schema": 1, "example": id, "key": key, "n": 268435456,
            "gpu": "NVIDIA H200", "tool": "ncu 2025.3", "measured_at": "2026-12-01T00:00:00Z",
            "kernels": [{"name": "tree(const float *, float *, unsigned int)",
                "block": "(256, 1, 1)", "grid": "(1024, 1, 1)",
                "metrics": metrics}]
        });
        let path = self
            .dir
            .path()
            .join(format!("results/profile/{id}/268435456.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, profile.to_string()).unwrap();
    }
}
