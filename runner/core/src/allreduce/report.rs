//! The JSON report of `cuda-runner allreduce`: one file per GPU model and
//! rank count (`results/allreduce/<model>-<k>gpu.json`), holding every
//! GPU's identity, the link between them, the software, the method, and
//! per implementation and message size the check and the figures.
//! `results/README.md` describes the fields.

use super::check::Tally;
use super::timing::Timing;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of this schema; bump it when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// The report of one sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// UTC, RFC 3339.
    pub measured_at: String,
    /// The runner's version.
    pub runner: String,
    /// [`super::kernels::kernels_key`] of the kernel sources built into the
    /// runner (`kernels/allreduce/*.cu`); absent in reports written before
    /// it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernels_key: Option<String>,
    /// Ranks, one per GPU.
    pub ranks: usize,
    /// Every rank's GPU, in rank order.
    pub gpus: Vec<RankGpu>,
    /// How the GPUs are connected.
    pub link: Link,
    /// Driver, NVRTC and NCCL.
    pub software: Software,
    /// The variables the runner set or found that steer the collective
    /// (`NCCL_*`, multicast switches, `CUDA_VISIBLE_DEVICES`).
    pub environment: BTreeMap<String, String>,
    /// How the figures were taken.
    pub method: Method,
    /// Every rank's input.
    pub inputs: Inputs,
    /// The check's tolerance.
    pub tolerance: Tolerance,
    /// Why the bus bandwidth reads as it does, where it needs saying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busbw_note: Option<String>,
    /// Sizes not run, with the reason.
    pub skipped: Vec<Skipped>,
    /// One row per implementation and size, in the order run.
    pub rows: Vec<Row>,
    /// Why the sweep stopped early (a GPU fault loses the context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
}

/// One rank's GPU, as the driver names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankGpu {
    /// The rank.
    pub rank: usize,
    /// The CUDA device ordinal (under `CUDA_VISIBLE_DEVICES`).
    pub ordinal: usize,
    /// `NVIDIA H200`.
    pub name: String,
    /// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, as nvidia-smi prints it.
    pub uuid: String,
    /// `0000:18:00.0`.
    pub pci_bus_id: String,
    /// `9.0`.
    pub compute_capability: String,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Device memory, bytes.
    pub memory_bytes: u64,
    /// The default SM clock, MHz.
    pub default_sm_clock_mhz: f64,
}

/// How the GPUs are connected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// `peer_access[r][s]`: whether rank r's GPU can read rank s's memory
    /// (`cuDeviceCanAccessPeer`; true on the diagonal).
    pub peer_access: Vec<Vec<bool>>,
    /// `nvidia-smi topo -m`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvidia_smi_topo: Option<String>,
    /// Why there is no topology (no nvidia-smi, or it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvidia_smi_topo_error: Option<String>,
}

/// Driver, NVRTC and NCCL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Software {
    /// Kernel module version (`580.95.05`).
    pub driver: String,
    /// CUDA version the driver supports (`13.0`).
    pub cuda_driver_api: String,
    /// NVRTC that compiled the kernels (`13.0`).
    pub nvrtc: String,
    /// NCCL's version (`2.27.3`), when it was loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nccl: Option<String>,
    /// The NCCL file this process loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nccl_library: Option<String>,
}

/// How the figures were taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// In words.
    pub description: String,
    /// GPU time a sample aims for, µs.
    pub sample_target_us: f64,
    /// All-reduces per sample at most.
    pub max_reps: u32,
    /// Stream commands a sample may queue on a stream behind its blocker.
    pub queue_budget: u32,
    /// Samples always taken.
    pub min_samples: usize,
    /// Relative spread that ends sampling.
    pub target_noise: f64,
    /// GPU time before the stop rules may end sampling, seconds.
    pub min_gpu_s: f64,
    /// Wall time after which sampling ends once `min_samples` are in, s.
    pub timeout_s: f64,
    /// Samples under this fraction of the default SM clock are dropped.
    pub throttle_fraction: f64,
}

/// Every rank's input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// f32 elements, summed (`f32`, `sum`).
    pub dtype: String,
    /// The reduction.
    pub op: String,
    /// The run's seed.
    pub seed: u64,
    /// Each rank's seed.
    pub rank_seeds: Vec<u64>,
    /// The generator, in words.
    pub generator: String,
    /// Every input's magnitude is below this.
    pub range: f64,
}

/// The check's tolerance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    /// The rule, in words.
    pub formula: String,
    /// Its value for this run's ranks and range.
    pub abs: f64,
}

/// A size not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// The message, bytes.
    pub bytes: u64,
    /// Why.
    pub reason: String,
}

/// One implementation at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `nccl`, `nccl-inplace`, `one-shot` or `two-shot`.
    pub implementation: String,
    /// The message, bytes.
    pub bytes: u64,
    /// f32 elements.
    pub elements: u64,
    /// The check of every rank's output after one untimed all-reduce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// The figures; absent when the check failed or the run did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// What went wrong, if anything did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Row {
    /// The row as one line for the terminal.
    pub fn line(&self) -> String {
        let head = format!(
            "{:>9}  {:<12}",
            super::sizes::format_bytes(self.bytes),
            self.implementation
        );
        if let Some(e) = &self.error {
            return format!("{head}  FAILED: {e}");
        }
        let check = match &self.check {
            Some(c) => format!("check ok (max error {:.1e})", c.tally.max_abs_error),
            None => "not checked".to_string(),
        };
        match &self.timing {
            Some(t) => format!(
                "{head}  {:>10.2} us ±{:.1}% ({} samples x {})  algbw {:>7.1} GB/s  busbw {:>7.1} GB/s  {check}{}",
                t.median_us,
                100.0 * t.rel_spread,
                t.samples,
                t.reps,
                t.algbw_gbs,
                t.busbw_gbs,
                if t.noisy { "  noisy" } else { "" }
            ),
            None => format!("{head}  not timed, {check}"),
        }
    }
}

/// The check of every rank's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// Every element of every rank's output was within the tolerance.
    pub pass: bool,
    /// What was found.
    #[serde(flatten)]
    pub tally: Tally,
}

impl Check {
    /// The check of `tally` over `ranks` outputs of `elements` each.
    pub fn of(tally: Tally, ranks: usize, elements: u64) -> Check {
        Check {
            pass: tally.passed(ranks as u64 * elements),
            tally,
        }
    }

    /// Why the check failed, in one line (`None` when it passed); `tol`
    /// is the tolerance it was held to, `expected` the elements over all
    /// ranks.
    pub fn failure(&self, tol: f64, expected: u64) -> Option<String> {
        if self.pass {
            return None;
        }
        let t = &self.tally;
        Some(match &t.first_bad {
            Some(b) => format!(
                "wrong answer: {} of {} elements outside the tolerance {tol:.2e}; first at rank {} index {}: got {}, want {}",
                t.bad, t.checked, b.rank, b.index, b.got, b.want
            ),
            None => format!("only {} of {expected} elements were checked", t.checked),
        })
    }
}

/// The report's file under the results folder: `allreduce/<model>-<k>gpu.json`.
pub fn relative_path(gpu_name: &str, ranks: usize) -> String {
    format!(
        "allreduce/{}-{ranks}gpu.json",
        crate::store::model_slug(gpu_name)
    )
}

/// A UUID's 16 bytes as nvidia-smi and NVML write them.
pub fn uuid_string(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allreduce::check::BadElement;
    use crate::allreduce::timing::{CollectiveSamples, Timing};

    fn report() -> Report {
        let timing = Timing::of(
            &CollectiveSamples {
                reps: 20,
                per_rank_us: vec![vec![9.5], vec![10.5], vec![10.0]],
                sm_clock_mhz: 1980.0,
                ..CollectiveSamples::default()
            },
            8,
            1,
        );
        Report {
            schema: SCHEMA_VERSION,
            measured_at: "2026-12-02T10:00:00Z".into(),
            runner: "0.1.0".into(),
            kernels_key: Some("k".repeat(64)),
            ranks: 1,
            gpus: vec![RankGpu {
                rank: 0,
                ordinal: 0,
                name: "NVIDIA H200".into(),
                uuid: "GPU-00112233-4455-6677-8899-aabbccddeeff".into(),
                pci_bus_id: "0000:18:00.0".into(),
                compute_capability: "9.0".into(),
                sm_count: 132,
                memory_bytes: 150 << 30,
                default_sm_clock_mhz: 1980.0,
            }],
            link: Link {
                peer_access: vec![vec![true]],
                nvidia_smi_topo: Some("\tGPU0\nGPU0\t X \n".into()),
                nvidia_smi_topo_error: None,
            },
            software: Software {
                driver: "580.95.05".into(),
                cuda_driver_api: "13.0".into(),
                nvrtc: "13.0".into(),
                nccl: Some("2.27.3".into()),
                nccl_library: None,
            },
            environment: [("NCCL_NVLS_ENABLE".to_string(), "0".to_string())].into(),
            method: Method {
                description: "hot".into(),
                sample_target_us: 200.0,
                max_reps: 100,
                queue_budget: 512,
                min_samples: 10,
                target_noise: 0.005,
                min_gpu_s: 0.1,
                timeout_s: 3.0,
                throttle_fraction: 0.75,
            },
            inputs: Inputs {
                dtype: "f32".into(),
                op: "sum".into(),
                seed: 1,
                rank_seeds: vec![42],
                generator: "splitmix64".into(),
                range: 1.0,
            },
            tolerance: Tolerance {
                formula: "exact".into(),
                abs: 0.0,
            },
            busbw_note: Some("one rank".into()),
            skipped: vec![Skipped {
                bytes: 4 << 30,
                reason: "no room".into(),
            }],
            rows: vec![
                Row {
                    implementation: "nccl".into(),
                    bytes: 8,
                    elements: 2,
                    check: Some(Check::of(
                        Tally {
                            checked: 2,
                            ..Tally::default()
                        },
                        1,
                        2,
                    )),
                    timing: Some(timing),
                    error: None,
                },
                Row {
                    implementation: "one-shot".into(),
                    bytes: 8,
                    elements: 2,
                    check: Some(Check::of(
                        Tally {
                            checked: 2,
                            bad: 1,
                            max_abs_error: f64::INFINITY,
                            first_bad: Some(BadElement {
                                rank: 0,
                                index: 1,
                                got: f64::NAN,
                                want: 0.5,
                            }),
                        },
                        1,
                        2,
                    )),
                    timing: None,
                    error: Some("wrong answer".into()),
                },
            ],
            aborted: None,
        }
    }

    // A report survives a trip through JSON, NaN and infinity included.
    #[test]
    fn report_round_trips_through_json() {
        let report = report();
        let text = serde_json::to_string_pretty(&report).unwrap();
        let back: Report = serde_json::from_str(&text).unwrap();
        // NaN != NaN, so compare the texts of both.
        assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text);
        assert!(text.contains("\"got\": \"NaN\""));
        assert!(text.contains("\"max_abs_error\": \"Infinity\""));
        assert_eq!(back.rows[0].timing, report.rows[0].timing);
    }

    // A report written before reports carried the kernels' key (the first
    // run, on one H200, cut to one row) still reads, without one; a new one
    // writes it.
    #[test]
    fn reports_before_the_kernels_key_still_read() {
        let first: Report =
            serde_json::from_str(include_str!("fixtures/report-before-kernels-key.json"))
                .expect("the first report reads");
        assert_eq!((first.ranks, first.kernels_key), (1, None));
        let value = serde_json::to_value(report()).unwrap();
        assert_eq!(value["kernels_key"], "k".repeat(64));
    }

    // The check's tally sits beside `pass` in the JSON, not nested.
    #[test]
    fn check_fields_are_flat() {
        let value = serde_json::to_value(report()).unwrap();
        let check = &value["rows"][0]["check"];
        assert_eq!(check["pass"], true);
        assert_eq!(check["checked"], 2);
        assert_eq!(value["schema"], SCHEMA_VERSION);
    }

    // A check passes only when every element of every rank was checked and passed.
    #[test]
    fn check_passes_only_on_every_element_of_every_rank() {
        let all = Tally {
            checked: 8,
            ..Tally::default()
        };
        assert!(Check::of(all.clone(), 2, 4).pass);
        assert!(!Check::of(all, 2, 5).pass);
    }

    // A timed row shows its median, spread, bandwidths and check; a failed one its error.
    #[test]
    fn rows_print_as_one_line_each() {
        let r = report();
        let ok = r.rows[0].line();
        assert!(ok.starts_with("      8 B  nccl"), "{ok}");
        assert!(ok.contains("10.00 us ±5.0% (3 samples x 20)"), "{ok}");
        assert!(
            ok.contains("busbw     0.0 GB/s") && ok.contains("check ok"),
            "{ok}"
        );
        assert!(r.rows[1].line().ends_with("FAILED: wrong answer"));
    }

    // A failed check says how many elements failed and the first of them;
    // a short one says how many were checked.
    #[test]
    fn a_failed_check_says_why() {
        let r = report();
        let wrong = r.rows[1].check.as_ref().unwrap();
        assert_eq!(
            wrong.failure(0.0, 2).unwrap(),
            "wrong answer: 1 of 2 elements outside the tolerance 0.00e0; first at rank 0 index 1: got NaN, want 0.5"
        );
        assert_eq!(r.rows[0].check.as_ref().unwrap().failure(0.0, 2), None);
        let short = Check::of(
            Tally {
                checked: 3,
                ..Tally::default()
            },
            2,
            2,
        );
        assert_eq!(
            short.failure(0.0, 4).unwrap(),
            "only 3 of 4 elements were checked"
        );
    }

    // Reports are filed by GPU model and rank count.
    #[test]
    fn reports_are_filed_by_model_and_ranks() {
        assert_eq!(
            relative_path("NVIDIA H200", 2),
            "allreduce/nvidia-h200-2gpu.json"
        );
    }

    // UUIDs print as nvidia-smi prints them.
    #[test]
    fn uuids_print_as_nvidia_smi_does() {
        let bytes: [u8; 16] = std::array::from_fn(|i| (i * 17) as u8);
        assert_eq!(
            uuid_string(&bytes),
            "GPU-00112233-4455-6677-8899-aabbccddeeff"
        );
    }
}
