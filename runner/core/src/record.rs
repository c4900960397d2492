//! The stored result of one example: the schema of `results/<id>.json`,
//! documented field by field in results/README.md. Pages, the status check
//! and later tools all read this shape; keep fields stable.

use crate::declaration::Expectation;
use crate::size::Size;
use serde::{Deserialize, Serialize};

/// Version of this schema.
pub const SCHEMA_VERSION: u32 = 1;

/// How an example ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Compiled, ran and checked correct at every size.
    Pass,
    /// Ran, but the check failed at one size or more.
    Wrong,
    /// NVRTC refused the source.
    CompileError,
    /// The driver refused a launch (bad configuration, missing kernel).
    LaunchError,
    /// The kernel faulted (illegal address, trap) or the process died.
    Fault,
    /// The example did not finish within its time limit.
    Timeout,
    /// The runner could not run the example for a reason outside it: a
    /// problem this runner does not know (a runner older than the book),
    /// or no NVRTC library to compile with. No example expects it.
    SetupError,
}

impl Status {
    /// The expectation that matches this status; none for a
    /// [`Status::SetupError`], which no example may declare.
    pub fn as_expectation(self) -> Option<Expectation> {
        match self {
            Status::Pass => Some(Expectation::Pass),
            Status::Wrong => Some(Expectation::Wrong),
            Status::CompileError => Some(Expectation::CompileError),
            Status::LaunchError => Some(Expectation::LaunchError),
            Status::Fault => Some(Expectation::Fault),
            Status::Timeout => Some(Expectation::Timeout),
            Status::SetupError => None,
        }
    }

    /// Short word for tables and CSS classes.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Wrong => "wrong",
            Status::CompileError => "compile-error",
            Status::LaunchError => "launch-error",
            Status::Fault => "fault",
            Status::Timeout => "timeout",
            Status::SetupError => "setup-error",
        }
    }
}

/// The GPU and toolchain a record was measured with.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GpuFacts {
    /// Marketing name as the driver reports it (`NVIDIA H200`).
    pub name: String,
    /// Compute capability, `"9.0"`.
    pub compute_capability: String,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// L2 cache size in bytes.
    pub l2_bytes: u64,
    /// Device memory in bytes.
    pub memory_bytes: u64,
    /// Datasheet peak memory bandwidth in GB/s (10^9 bytes per second).
    #[serde(with = "crate::nonfinite")]
    pub peak_gbs: f64,
    /// Where `peak_gbs` comes from (`datasheet` or `memory clock x bus width`).
    pub peak_source: String,
    /// Driver version string (`580.159.04`), or the CUDA driver API version
    /// when the string cannot be read.
    pub driver: String,
    /// CUDA version the driver supports (`13.0`).
    pub cuda_driver_api: String,
    /// NVRTC version used to compile (`13.0`).
    pub nvrtc: String,
    /// The physical GPU, as the driver names it
    /// (`GPU-8905907f-2deb-99f9-de3b-5b52277fc84d`); absent in records
    /// made before records carried it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// Figures of one size.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SizeResult {
    /// Elements; for a row-wise problem, the row length; for a problem of
    /// several dimensions, the product of their values (`dims`).
    pub n: Size,
    /// Rows, for a row-wise problem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// The values of each dimension, for a problem of several (an ordered
    /// map: `{"rows": 8192, "cols": 4096}`); `n` is then their product.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::problem::dims_map"
    )]
    pub dims: Option<crate::dims::Dims>,
    /// The value of the example's swept parameter these figures are of
    /// (`{"name": "STRIDE", "value": 4}`); absent for an example that
    /// sweeps nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<crate::sweep::SweepValue>,
    /// The ceiling `pct_ceiling` is of: `copy`, a named ceiling of the
    /// record's `ceilings.named` (`fp32_fma`, `h2d_pinned`, `d2h_pinned`),
    /// or the read ceiling when absent (and `figure` is not a latency,
    /// which has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<String>,
    /// The primary figure, when it is not `gbs`: `tflops` or
    /// `ns_per_access` ([`crate::figures::value`] gives every figure).
    /// Absent in bandwidth records, as in every record made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<String>,
    /// Timed warm: no L2 flush before each sample, the run before it (or
    /// the warm-up run) having touched the same data, so the data sits in
    /// whichever cache holds it (a pointer chase's latency staircase).
    /// Absent (false) for cold timing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub warm: bool,
    /// Bytes the algorithm must move.
    pub bytes: u64,
    /// Resolved launches, e.g. `528 x 512, 0 B shared`, one per launch.
    pub launches: Vec<String>,
    /// Median time of the timed samples, microseconds.
    #[serde(with = "crate::nonfinite")]
    pub median_us: f64,
    /// Fastest sample, microseconds.
    #[serde(with = "crate::nonfinite")]
    pub min_us: f64,
    /// Slowest sample, microseconds.
    #[serde(with = "crate::nonfinite")]
    pub max_us: f64,
    /// Number of timed samples kept.
    pub samples: u32,
    /// Relative spread: standard deviation over mean of the kept samples.
    #[serde(with = "crate::nonfinite")]
    pub rel_spread: f64,
    /// Bytes over median time, GB/s.
    #[serde(with = "crate::nonfinite")]
    pub gbs: f64,
    /// `gbs` as a percentage of the datasheet peak.
    #[serde(with = "crate::nonfinite")]
    pub pct_peak: f64,
    /// `gbs` as a percentage of the ceiling measured in the same run: the
    /// read ceiling, or the copy ceiling where `ceiling` says `copy`.
    #[serde(default, with = "crate::nonfinite::option")]
    pub pct_ceiling: Option<f64>,
    /// The ceiling measured at this very size, GB/s, where the problem
    /// compares with the copy ceiling: the support copy kernel moving the
    /// same bytes (half read, half written), cold, median over the
    /// processes. `pct_ceiling` is of it when present.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::nonfinite::option"
    )]
    pub ceiling_gbs: Option<f64>,
    /// Hot figure: median per run of back-to-back runs with L2 warm and
    /// nothing in between, microseconds. Labelled "hot" wherever shown.
    #[serde(default, with = "crate::nonfinite::option")]
    pub hot_median_us: Option<f64>,
    /// Median SM clock over the kept samples, MHz (0 when unknown).
    #[serde(default, with = "crate::nonfinite")]
    pub sm_clock_mhz: f64,
    /// Samples dropped because the SM clock was below 75% of its default.
    #[serde(default)]
    pub throttled_dropped: u32,
    /// Set when the example's measuring budget, not the stop rule, ended
    /// sampling at this size (fewer samples than the method's minimum, no
    /// hot figure; labelled `budget`): the budget and what one sample
    /// took. Absent otherwise, as in every record made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::method::BudgetEnd>,
    /// For an example that launches thread-block clusters: how many of
    /// its first cluster launch's clusters the GPU can hold resident at
    /// once (the driver's `cuOccupancyMaxActiveClusters` for that launch's
    /// block, shared memory and cluster size). Absent for other examples
    /// and in every record made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<ClusterFit>,
    /// Error against the float64 reference, as the problem defines it.
    #[serde(with = "crate::nonfinite")]
    pub error: f64,
    /// The tolerance the error was held to.
    #[serde(with = "crate::nonfinite")]
    pub tolerance: f64,
    /// Whether the check passed (in every checked run of this size).
    pub pass: bool,
    /// Open metrics by name: each unit of work the problem declares per
    /// run, as a rate per second over the median time (`elements_per_s`,
    /// `rows_per_s`); later also profiler counters.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub metrics: std::collections::BTreeMap<String, f64>,
    /// Labels that qualify the figure: `fits-in-l2` (the bytes moved fit in
    /// L2), `launch-bound` (median under twice the measured launch floor),
    /// `noisy` (the noise target was not met before the time-out),
    /// `budget` (the measuring budget ended sampling short of the minimum
    /// sample count).
    #[serde(default)]
    pub labels: Vec<String>,
}

/// How many clusters of one launch fit the GPU at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterFit {
    /// Blocks a cluster (`__cluster_dims__`' product).
    pub blocks: u32,
    /// The most clusters resident at once, as the driver computes it.
    pub max_active: u32,
}

impl SizeResult {
    /// The size these figures are of: its dimensions' values, or `n`
    /// ([`crate::dims::Dims::n`]), whose text is the size's canonical text.
    pub fn size(&self) -> crate::dims::Dims {
        self.dims.unwrap_or(crate::dims::Dims::n(self.n.0))
    }
}

impl EdgeCheck {
    /// The size checked, as [`SizeResult::size`].
    pub fn size(&self) -> crate::dims::Dims {
        self.dims.unwrap_or(crate::dims::Dims::n(self.n.0))
    }
}

/// A check at a size that is not timed (ragged sizes that catch edge bugs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeCheck {
    /// Elements; for a row-wise problem, the row length; for a problem of
    /// several dimensions, the product of their values (`dims`).
    pub n: Size,
    /// Rows, for a row-wise problem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// The values of each dimension, for a problem of several (an ordered
    /// map: `{"rows": 8192, "cols": 4096}`); `n` is then their product.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::problem::dims_map"
    )]
    pub dims: Option<crate::dims::Dims>,
    /// The value of the swept parameter checked, as in [`SizeResult`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<crate::sweep::SweepValue>,
    /// Error against the reference.
    #[serde(with = "crate::nonfinite")]
    pub error: f64,
    /// Tolerance.
    #[serde(with = "crate::nonfinite")]
    pub tolerance: f64,
    /// Whether it passed.
    pub pass: bool,
}

/// One example's stored result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Measured in quick mode (the author's preview on a GPU machine): one
    /// process with one process's share of the sampling budget. Quick
    /// records are kept out of the results store and no strict build
    /// accepts one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quick: bool,
    /// Schema version ([`SCHEMA_VERSION`]).
    pub schema: u32,
    /// Example id.
    pub example: String,
    /// Content hash of everything that changes the result.
    pub key: String,
    /// How it ended.
    pub status: Status,
    /// What the example declared it would do.
    pub expect: Expectation,
    /// One-line summary for the page (the first compiler error, the fault).
    #[serde(default)]
    pub message: String,
    /// Full log (compiler output, stderr of the child), possibly empty.
    #[serde(default)]
    pub log: String,
    /// Measuring-method version.
    pub method_version: u32,
    /// Child processes whose samples were pooled into these figures
    /// (0 in records older than method v3, which used one).
    #[serde(default)]
    pub processes: u32,
    /// Problem name and version (`sum_f32 v1`).
    pub problem: String,
    /// NVRTC options used.
    pub compile_options: Vec<String>,
    /// GPU and toolchain, when one was reached.
    pub gpu: Option<GpuFacts>,
    /// Read/copy ceilings and launch floor measured in the same process.
    #[serde(default)]
    pub ceilings: Option<crate::method::Ceilings>,
    /// UTC time of the measurement, RFC 3339.
    pub measured_at: String,
    /// Wall time the whole example took, seconds.
    #[serde(with = "crate::nonfinite")]
    pub wall_s: f64,
    /// Registers per thread of each kernel, when compiled.
    #[serde(default)]
    pub registers: Vec<(String, u32)>,
    /// Timed sizes.
    pub sizes: Vec<SizeResult>,
    /// Untimed edge-size checks.
    #[serde(default)]
    pub edge_checks: Vec<EdgeCheck>,
    /// Where the measuring time went (absent in records measured before it
    /// was kept, and in records that failed before any process reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The same, for each process in the order they ran (the first one
    /// draws the data and judges the answers the others find judged);
    /// empty for one process and in records measured before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost_by_process: Vec<Cost>,
}

/// Where an example's measuring time went: seconds, summed over its
/// processes. Diagnostic only: not a figure of the kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Starting and ending the processes (the parent's wall time less what
    /// the processes account for).
    #[serde(with = "crate::nonfinite")]
    pub start_s: f64,
    /// Opening the GPU (context creation).
    #[serde(with = "crate::nonfinite")]
    pub context_s: f64,
    /// Compiling and loading the example.
    #[serde(with = "crate::nonfinite")]
    pub compile_s: f64,
    /// Compiling the support kernels and allocating the flush buffer.
    #[serde(with = "crate::nonfinite")]
    pub support_s: f64,
    /// Measuring the read and copy ceilings and the launch floor.
    #[serde(with = "crate::nonfinite")]
    pub ceilings_s: f64,
    /// Drawing the inputs and copying them to the GPU.
    #[serde(with = "crate::nonfinite")]
    pub inputs_s: f64,
    /// Copying answers back and checking them against the float64 reference.
    #[serde(with = "crate::nonfinite")]
    pub checks_s: f64,
    /// Running and timing the kernels (correctness runs, cold samples, hot figures).
    #[serde(with = "crate::nonfinite")]
    pub timing_s: f64,
}

impl Cost {
    /// The sum of two costs.
    pub fn plus(self, o: Cost) -> Cost {
        Cost {
            start_s: self.start_s + o.start_s,
            context_s: self.context_s + o.context_s,
            compile_s: self.compile_s + o.compile_s,
            support_s: self.support_s + o.support_s,
            ceilings_s: self.ceilings_s + o.ceilings_s,
            inputs_s: self.inputs_s + o.inputs_s,
            checks_s: self.checks_s + o.checks_s,
            timing_s: self.timing_s + o.timing_s,
        }
    }

    /// `start 1.2, context 2.0, ...` for progress lines.
    pub fn describe(&self) -> String {
        [
            ("start", self.start_s),
            ("context", self.context_s),
            ("compile", self.compile_s),
            ("support", self.support_s),
            ("ceilings", self.ceilings_s),
            ("inputs", self.inputs_s),
            ("checks", self.checks_s),
            ("timing", self.timing_s),
        ]
        .iter()
        .map(|(what, s)| format!("{what} {s:.1}"))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

impl Record {
    /// Whether the outcome is what the example declared.
    pub fn as_expected(&self) -> bool {
        self.status.as_expectation() == Some(self.expect)
    }

    /// A result with no figures, for failures found before timing.
    pub fn failure(
        example: &crate::example::Example,
        key: &str,
        status: Status,
        message: impl Into<String>,
        log: impl Into<String>,
    ) -> Self {
        Record {
            quick: false,
            schema: SCHEMA_VERSION,
            example: example.id.clone(),
            key: key.to_string(),
            status,
            expect: example.declaration.expect,
            message: message.into(),
            log: log.into(),
            method_version: crate::METHOD_VERSION,
            processes: 0,
            problem: crate::problem::describe(&example.declaration.problem),
            compile_options: example.compile_options(),
            gpu: None,
            ceilings: None,
            measured_at: crate::record::now_rfc3339(),
            wall_s: 0.0,
            registers: Vec::new(),
            sizes: Vec::new(),
            edge_checks: Vec::new(),
            cost: None,
            cost_by_process: Vec::new(),
        }
    }
}

/// The current UTC time, RFC 3339, to the second.
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(time::OffsetDateTime::now_utc());
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::test_records;
    use super::{Expectation, Status};

    // A set-up failure is a status of its own, written `setup-error`, that
    // no declaration's `expect` matches: it is never "as declared".
    #[test]
    fn a_setup_error_matches_no_expectation() {
        assert_eq!(
            serde_json::to_string(&Status::SetupError).unwrap(),
            "\"setup-error\""
        );
        assert_eq!(Status::SetupError.word(), "setup-error");
        assert_eq!(Status::SetupError.as_expectation(), None);
        let mut r = test_records::record("a", "k");
        r.status = Status::SetupError;
        for expect in [
            Expectation::Pass,
            Expectation::Fault,
            Expectation::CompileError,
        ] {
            r.expect = expect;
            assert!(!r.as_expected());
        }
        assert_eq!(Status::Fault.as_expectation(), Some(Expectation::Fault));
    }

    // A record made before named ceilings, figures and warm timing reads
    // with none of them and writes back byte for byte as it was; one with
    // them reads them back.
    #[test]
    fn old_records_read_and_new_fields_round_trip() {
        let text = include_str!("../../../results/reductions/two_pass.json");
        let old: super::Record = serde_json::from_str(text).expect("a stored record reads");
        let c = old.ceilings.as_ref().expect("it has ceilings");
        assert!(c.named.is_empty());
        assert!(old.sizes.iter().all(|s| s.figure.is_none() && !s.warm));
        let again = serde_json::to_value(&old).unwrap();
        let stored: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(again, stored, "no field added to an old record");

        let mut new = test_records::record("m/mm", "k");
        let mut ceilings = c.clone();
        ceilings.named.insert(
            "fp32_fma".into(),
            crate::method::MeasuredCeiling {
                value: 51.2,
                unit: "TFLOP/s".into(),
                peak: Some(66.9),
                sm_clock_mhz: Some(1980.0),
            },
        );
        new.ceilings = Some(ceilings);
        let mut size = test_records::size(4096, 1, 1.0, true);
        size.figure = Some("tflops".into());
        size.ceiling = Some("fp32_fma".into());
        size.warm = true;
        size.clusters = Some(super::ClusterFit {
            blocks: 8,
            max_active: 16,
        });
        new.sizes.push(size);
        let json = serde_json::to_string(&new).unwrap();
        assert!(
            json.contains(r#""clusters":{"blocks":8,"max_active":16}"#),
            "{json}"
        );
        assert!(old.sizes.iter().all(|s| s.clusters.is_none()));
        assert!(json.contains(r#""named":{"fp32_fma":{"value":51.2,"unit":"TFLOP/s","peak":66.9,"sm_clock_mhz":1980.0}}"#), "{json}");
        let back: super::Record = serde_json::from_str(&json).unwrap();
        assert_eq!(back, new);
    }
}

/// Records for the tests of the modules that read them.
#[cfg(test)]
pub(crate) mod test_records {
    use super::{Record, SizeResult};
    use crate::size::Size;

    /// A passing record of `example` with `key` and no sizes: method 5,
    /// problem `sum_f32 v2`, no GPU, measured 2026-12-01.
    pub fn record(example: &str, key: &str) -> Record {
        serde_json::from_value(serde_json::json!({
            "schema": 1, "example": example, "key": key, "status": "pass", "expect": "pass",
            "method_version": 5, "problem": "sum_f32 v2", "compile_options": [],
            "gpu": null, "measured_at": "2026-12-01T00:00:00Z", "wall_s": 1.0, "sizes": []
        }))
        .expect("the test record matches the schema")
    }

    /// A size `n` of `bytes` whose samples all took `us`, passing or not.
    pub fn size(n: u64, bytes: u64, us: f64, pass: bool) -> SizeResult {
        SizeResult {
            n: Size(n),
            bytes,
            median_us: us,
            min_us: us,
            max_us: us,
            samples: 10,
            rel_spread: 0.01,
            gbs: 1.0,
            pct_peak: 1.0,
            tolerance: 1.0,
            pass,
            ..SizeResult::default()
        }
    }
}
