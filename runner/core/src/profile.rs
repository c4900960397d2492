//! Profiler evidence: Nsight Compute's counters for one run of an example
//! at one size, stored as `results/profile/<example id>/<n>.json` (n the
//! size as a number) and shown by `{{#profile ID METRIC SIZE}}`. A profile
//! is current while its `key` equals the example's key, as a record is.
//! Profiles of GPUs other than the book's target go under
//! `results/gpus/<model>/profile/`, as their records do.
//!
//! Nsight Compute is run with `--clock-control none` (the clocks the timings
//! ran at) and `--csv --metrics ...`; [`parse_ncu_csv`] reads that output,
//! skipping what the profiled program and the tool print around it.

use crate::dims::Dims;
use crate::size::Size;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the profile format.
pub const SCHEMA_VERSION: u32 = 1;

/// The counters the book collects for every example, by short name (as
/// directives write them) and Nsight Compute metric.
pub const METRICS: &[(&str, &str)] = &[
    ("time", "gpu__time_duration.sum"),
    ("sm", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("dram", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    (
        "memory",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "occupancy",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
    ),
    ("instructions", "smsp__inst_executed.sum"),
    (
        "bank_conflicts",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    ),
    ("dram_read", "dram__bytes_read.sum"),
    ("dram_write", "dram__bytes_write.sum"),
    ("registers", "launch__registers_per_thread"),
    // Global memory traffic through L1 (added for the coalescing and
    // transpose chapters): 32-byte sectors a warp's loads and stores touch,
    // and their average per request (one request per warp-wide memory
    // instruction). Profiles stored before these were added lack them, and
    // a directive reading one waits for the example to be profiled again.
    (
        "ld_sectors_per_request",
        "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    ),
    (
        "st_sectors_per_request",
        "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
    ),
    (
        "ld_sectors",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    ),
    (
        "st_sectors",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    ),
];

/// The directive word (`{{#profile ID stalls SIZE}}`) for a kernel's
/// leading warp stall reasons, collected only by `cuda-runner profile
/// --stalls`.
pub const STALLS: &str = "stalls";

/// The warp stall reasons of Nsight Compute's WarpStateStats section
/// (Volta and later; the names of its
/// `smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio`
/// metrics). `selected` is the cycle a warp issues, not a stall.
pub const STALL_REASONS: &[&str] = &[
    "barrier",
    "branch_resolving",
    "dispatch_stall",
    "drain",
    "imc_miss",
    "lg_throttle",
    "long_scoreboard",
    "math_pipe_throttle",
    "membar",
    "mio_throttle",
    "misc",
    "no_instruction",
    "not_selected",
    "selected",
    "short_scoreboard",
    "sleeping",
    "tex_throttle",
    "wait",
];

/// The average number of cycles a warp spends between two of its issued
/// instructions (active warps per issue): the sum of the stall reasons'
/// cycles, `selected` included.
pub const ISSUE_INTERVAL: &str = "smsp__average_warps_active_per_issue_active.ratio";

/// The Nsight Compute metric of stall reason `reason`: the average cycles
/// a warp spends stalled for it per issued instruction.
pub fn stall_metric(reason: &str) -> String {
    format!("smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio")
}

/// Every counter `cuda-runner profile --stalls` adds to [`METRICS`]: each
/// stall reason and [`ISSUE_INTERVAL`].
pub fn stall_metrics() -> Vec<String> {
    STALL_REASONS
        .iter()
        .map(|r| stall_metric(r))
        .chain([ISSUE_INTERVAL.to_string()])
        .collect()
}

/// The Nsight Compute metric a directive's word names: a short name of
/// [`METRICS`] or the full name of one of them, `stall_<reason>` or the
/// full name of a stall reason's metric, or `issue_interval` (the
/// profiles hold no other counter).
pub fn metric_named(word: &str) -> Option<String> {
    if let Some(found) = METRICS
        .iter()
        .find(|(short, full)| *short == word || *full == word)
        .map(|(_, full)| full.to_string())
    {
        return Some(found);
    }
    if word == "issue_interval" || word == ISSUE_INTERVAL {
        return Some(ISSUE_INTERVAL.to_string());
    }
    STALL_REASONS
        .iter()
        .map(|r| (format!("stall_{r}"), stall_metric(r)))
        .find(|(short, full)| short == word || full == word)
        .map(|(_, full)| full)
}

/// One stall reason of a kernel: average cycles a warp spent stalled for
/// it per issued instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Stall {
    /// The reason as Nsight Compute names it (`long_scoreboard`).
    pub reason: &'static str,
    /// Cycles per issued instruction.
    pub cycles: f64,
}

/// A kernel's stall reasons, most cycles first (`selected` left out: it
/// is the issuing cycle), with the cycles between two issued instructions
/// they add up to. `None` for a profile collected without `--stalls`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stalls {
    /// Reasons, most cycles first, those of no cycles left out.
    pub reasons: Vec<Stall>,
    /// [`ISSUE_INTERVAL`], when collected.
    pub interval: Option<f64>,
}

impl KernelProfile {
    /// This kernel's stall reasons, or `None` when the profile has none.
    pub fn stalls(&self) -> Option<Stalls> {
        let mut reasons: Vec<Stall> = STALL_REASONS
            .iter()
            .filter(|r| **r != "selected")
            .filter_map(|r| {
                self.metrics.get(&stall_metric(r)).map(|m| Stall {
                    reason: r,
                    cycles: m.value,
                })
            })
            .collect();
        if reasons.is_empty() {
            return None;
        }
        reasons.retain(|s| s.cycles > 0.0);
        reasons.sort_by(|a, b| b.cycles.total_cmp(&a.cycles));
        Some(Stalls {
            reasons,
            interval: self.metrics.get(ISSUE_INTERVAL).map(|m| m.value),
        })
    }
}

/// The file of the profile of example `id` at size `size`, relative to the
/// results folder, for a run on the GPU named `gpu`: `<n>.json`, or for a
/// size of several dimensions `rows-8192_cols-4096.json`
/// ([`crate::dims::Dims::file_stem`]).
pub fn relative_path(id: &str, size: Dims, gpu: &str) -> String {
    let file = format!("profile/{id}/{}.json", size.file_stem());
    if gpu == crate::limits::KnownGpu::target().name {
        file
    } else {
        format!(
            "{}/{}/{file}",
            crate::store::GPUS_DIR,
            crate::store::model_slug(gpu)
        )
    }
}

/// `ncu 2025.3.1.0` from `ncu --version` (whose last line is `Version
/// 2025.3.1.0 (build 36398880) (public-release)`), and the same for the
/// other NVIDIA tools that print a `Version` line (compute-sanitizer):
/// `tool` and the first word after `Version `, else `tool` alone.
pub fn tool_version(tool: &str, output: &str) -> String {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Version "))
        .and_then(|rest| rest.split_whitespace().next())
        .map_or_else(|| tool.to_string(), |v| format!("{tool} {v}"))
}

/// One counter's value with Nsight Compute's unit (`%`, `byte`, `ns`,
/// `inst`, or empty).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Unit as Nsight Compute names it.
    pub unit: String,
    /// Value.
    #[serde(with = "crate::nonfinite")]
    pub value: f64,
}

/// The counters of one kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelProfile {
    /// The kernel's name as Nsight Compute reports it.
    pub name: String,
    /// Block and grid as Nsight Compute reports them: `(1024, 1, 1)`.
    pub block: String,
    /// Grid.
    pub grid: String,
    /// Counters by full metric name.
    pub metrics: BTreeMap<String, Metric>,
}

/// The profile of one example at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Format version ([`SCHEMA_VERSION`]).
    pub schema: u32,
    /// Example id.
    pub example: String,
    /// The example's key when profiled.
    pub key: String,
    /// The size profiled (the row length for a row-wise problem; the
    /// product of the values for a problem of several dimensions).
    pub n: Size,
    /// The values of each dimension, for a problem of several.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::problem::dims_map"
    )]
    pub dims: Option<Dims>,
    /// The GPU's name.
    pub gpu: String,
    /// The profiler and its version (`ncu 2025.3.1`).
    pub tool: String,
    /// When (RFC 3339).
    pub measured_at: String,
    /// The example's launches, in order.
    pub kernels: Vec<KernelProfile>,
}

impl Profile {
    /// The size profiled.
    pub fn size(&self) -> Dims {
        self.dims.unwrap_or(Dims::n(self.n.0))
    }

    /// `metric` of every kernel that has it, as (kernel name, value).
    pub fn values(&self, metric: &str) -> Vec<(&str, &Metric)> {
        self.kernels
            .iter()
            .filter_map(|k| k.metrics.get(metric).map(|m| (k.name.as_str(), m)))
            .collect()
    }
}

/// Why Nsight Compute's output cannot be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ParseError {
    /// No CSV header (`"ID","Process ID",...`) in the output.
    #[error("no Nsight Compute CSV in the output (was it run with --csv?)")]
    NoTable,
    /// The table lacks a column the reader needs.
    #[error("the Nsight Compute CSV has no `{0}` column")]
    MissingColumn(&'static str),
    /// A row does not parse.
    #[error("row {row} of the Nsight Compute CSV: {message}")]
    Row {
        /// 1-based row after the header.
        row: usize,
        /// What is wrong.
        message: String,
    },
}

/// The kernels of `ncu --csv --metrics ...` output, in launch order, each
/// with its counters. Lines before the CSV header (the tool's `==PROF==`
/// lines, the program's own output) are skipped. Values lose Nsight
/// Compute's thousands separators (`13,046,272`); a counter the GPU does
/// not have (`n/a`) is left out.
pub fn parse_ncu_csv(output: &str) -> Result<Vec<KernelProfile>, ParseError> {
    let start = if output.starts_with("\"ID\",") {
        0
    } else {
        output.find("\n\"ID\",").ok_or(ParseError::NoTable)? + 1
    };
    let table: String = output[start..]
        .lines()
        .filter(|l| l.starts_with('"'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut reader = csv::Reader::from_reader(table.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| ParseError::Row {
            row: 0,
            message: e.to_string(),
        })?
        .clone();
    let column = |name: &'static str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or(ParseError::MissingColumn(name))
    };
    let (id, kernel, block, grid) = (
        column("ID")?,
        column("Kernel Name")?,
        column("Block Size")?,
        column("Grid Size")?,
    );
    let (metric, unit, value) = (
        column("Metric Name")?,
        column("Metric Unit")?,
        column("Metric Value")?,
    );
    let mut kernels: Vec<(String, KernelProfile)> = Vec::new();
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| ParseError::Row {
            row: row + 1,
            message: e.to_string(),
        })?;
        let field = |i: usize| record.get(i).unwrap_or_default();
        let text = field(value).replace(',', "");
        if text == "n/a" {
            continue;
        }
        let number: f64 = text.parse().map_err(|_| ParseError::Row {
            row: row + 1,
            message: format!("`{}` is not a number", field(value)),
        })?;
        let launch = field(id).to_string();
        if kernels.last().is_none_or(|(l, _)| *l != launch) {
            kernels.push((
                launch,
                KernelProfile {
                    name: field(kernel).to_string(),
                    block: field(block).to_string(),
                    grid: field(grid).to_string(),
                    metrics: BTreeMap::new(),
                },
            ));
        }
        let (_, k) = kernels.last_mut().expect("pushed above");
        k.metrics.insert(
            field(metric).to_string(),
            Metric {
                unit: field(unit).to_string(),
                value: number,
            },
        );
    }
    Ok(kernels.into_iter().map(|(_, k)| k).collect())
}

/// A counter as a page shows it: `96.9%`, `921.6 µs`, `1.07 GB`,
/// `134,217,728 inst`.
pub fn shown(m: &Metric) -> String {
    match m.unit.as_str() {
        "%" => format!("{:.1}%", m.value),
        "ns" if m.value >= 1000.0 => format!("{:.1} µs", m.value / 1000.0),
        "ns" => format!("{:.0} ns", m.value),
        "byte" if m.value >= 1e9 => format!("{:.2} GB", m.value / 1e9),
        "byte" if m.value >= 1e6 => format!("{:.1} MB", m.value / 1e6),
        unit => {
            let whole = m.value.round() as u64;
            let digits = whole.to_string();
            let mut grouped = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            if (m.value - whole as f64).abs() > 1e-9 {
                grouped = format!("{:.2}", m.value);
            }
            // Nsight Compute's unit is singular (`sector`); a page reads
            // `4 sectors per request`.
            match unit {
                "" => grouped,
                "sector" if m.value != 1.0 => format!("{grouped} sectors"),
                unit => format!("{grouped} {unit}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The CSV of a real Nsight Compute run (two of its kernels at 2^30 on
    // an H200: cuRAND's set-up and fast_reduce, with the program's own
    // output and the tool's notes around them) reads kernel by kernel.
    #[test]
    fn a_real_ncu_csv_reads_kernel_by_kernel() {
        let text = include_str!("fixtures/ncu-two-kernels.csv");
        let kernels = parse_ncu_csv(text).unwrap();
        let fast: Vec<&KernelProfile> = kernels
            .iter()
            .filter(|k| k.name.contains("reduce_fast"))
            .collect();
        assert_eq!(
            fast.len(),
            1,
            "{:?}",
            kernels.iter().map(|k| &k.name).collect::<Vec<_>>()
        );
        let dram = &fast[0].metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"];
        assert_eq!(dram.unit, "%");
        assert!(dram.value > 90.0 && dram.value <= 100.0, "{dram:?}");
        let curand = &kernels[0].metrics["dram__bytes_read.sum"];
        assert_eq!(
            curand.value, 13_046_272.0,
            "thousands separators are dropped"
        );
    }

    // Without a table, the message says what to run.
    #[test]
    fn output_without_a_table_is_an_error() {
        assert_eq!(
            parse_ncu_csv("==PROF== Disconnected\n"),
            Err(ParseError::NoTable)
        );
    }

    // Short names and full metric names are accepted; other words not.
    #[test]
    fn metric_words() {
        assert_eq!(
            metric_named("dram").as_deref(),
            Some("dram__throughput.avg.pct_of_peak_sustained_elapsed")
        );
        assert_eq!(
            metric_named("smsp__inst_executed.sum").as_deref(),
            Some("smsp__inst_executed.sum")
        );
        assert_eq!(
            metric_named("ld_sectors_per_request").as_deref(),
            Some("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"),
            "the coalescing chapter's counter"
        );
        assert_eq!(metric_named("bandwidth"), None);
        assert_eq!(
            metric_named("lts__t_sector_hit_rate.pct"),
            None,
            "not collected"
        );
        assert_eq!(
            tool_version(
                "ncu",
                "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\nVersion 2025.3.1.0 (build 36398880) (public-release)"
            ),
            "ncu 2025.3.1.0"
        );
        assert_eq!(
            tool_version("compute-sanitizer", "no version here"),
            "compute-sanitizer"
        );
        assert_eq!(
            relative_path("ch/k", Dims::n(1024), "NVIDIA H100 PCIe"),
            "gpus/nvidia-h100-pcie/profile/ch/k/1024.json"
        );
    }

    // A profile collected with --stalls stores every stall reason's
    // counter from Nsight Compute's CSV (unit empty for a ratio); the
    // kernel's stalls rank them by cycles, leave out `selected` (the
    // issuing cycle) and reasons of no cycles, and carry the issue
    // interval. A kernel profiled without them has no stalls.
    #[test]
    fn stall_reasons_are_stored_and_ranked() {
        let head = r#""ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value""#;
        let row = |id: &str, metric: &str, value: &str| {
            format!(
                r#""{id}","1","cuda-runner","h","sum_atomic","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","{metric}","","{value}""#
            )
        };
        let mut lines = vec!["==PROF== Connected".to_string(), head.to_string()];
        for (reason, value) in [
            ("long_scoreboard", "3.10"),
            ("lg_throttle", "11.52"),
            ("selected", "1.00"),
            ("membar", "0"),
            ("barrier", "2.05"),
        ] {
            lines.push(row("0", &stall_metric(reason), value));
        }
        lines.push(row("0", ISSUE_INTERVAL, "17.70"));
        lines.push(row("1", "smsp__inst_executed.sum", "1,024"));
        let kernels = parse_ncu_csv(&lines.join("\n")).unwrap();
        assert_eq!(kernels.len(), 2);
        let stalls = kernels[0].stalls().expect("stall counters were collected");
        let ranked: Vec<(&str, f64)> = stalls
            .reasons
            .iter()
            .map(|s| (s.reason, s.cycles))
            .collect();
        assert_eq!(
            ranked,
            [
                ("lg_throttle", 11.52),
                ("long_scoreboard", 3.10),
                ("barrier", 2.05)
            ]
        );
        assert_eq!(stalls.interval, Some(17.70));
        assert_eq!(kernels[1].stalls(), None, "profiled without --stalls");
        assert_eq!(
            metric_named("stall_long_scoreboard").as_deref(),
            Some("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio")
        );
        assert_eq!(
            metric_named("issue_interval").as_deref(),
            Some(ISSUE_INTERVAL)
        );
        assert_eq!(metric_named("stall_queue"), None);
        assert_eq!(stall_metrics().len(), STALL_REASONS.len() + 1);
    }

    // Values read as pages show them.
    #[test]
    fn values_are_shown_with_their_units() {
        let m = |unit: &str, value: f64| Metric {
            unit: unit.into(),
            value,
        };
        assert_eq!(shown(&m("%", 96.94)), "96.9%");
        assert_eq!(shown(&m("ns", 921_632.0)), "921.6 µs");
        assert_eq!(shown(&m("inst", 134_217_728.0)), "134,217,728 inst");
        assert_eq!(shown(&m("", 30.0)), "30");
        assert_eq!(shown(&m("sector", 2_097_152.0)), "2,097,152 sectors");
        assert_eq!(shown(&m("sector", 31.99)), "31.99 sectors");
        assert_eq!(shown(&m("sector", 1.0)), "1 sector");
        assert_eq!(shown(&m("byte", 1_073_741_824.0)), "1.07 GB");
    }
}
