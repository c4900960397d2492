//! The comparison with vendor libraries: the book's best kernel for a
//! problem and its peers (CUB, torch, cupy) timed with the same cold method
//! in one run on one GPU (`bench/peers/`). Stored as
//! `results/peers/<problem>.json` and rendered on the comparison page.

use crate::method::Ceilings;
use crate::record::{Record, Status};
use crate::size::Size;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One implementation's figures at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Median cold time, µs.
    #[serde(with = "crate::nonfinite")]
    pub median_us: f64,
    /// Fastest sample, µs.
    #[serde(with = "crate::nonfinite")]
    pub min_us: f64,
    /// Slowest sample, µs.
    #[serde(with = "crate::nonfinite")]
    pub max_us: f64,
    /// Samples kept.
    pub samples: u32,
    /// Standard deviation over mean.
    #[serde(with = "crate::nonfinite")]
    pub rel_spread: f64,
    /// Sampling timed out before the noise target.
    pub noisy: bool,
    /// The answer passed the problem's check.
    pub pass: bool,
}

/// All implementations at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Elements.
    pub n: Size,
    /// Bytes the algorithm must move.
    pub bytes: u64,
    /// The ceiling measured with our kernel at this size, GB/s, where its
    /// record has one (copy-bound problems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling_gbs: Option<f64>,
    /// The book's kernel.
    pub ours: Option<Timing>,
    /// Which of the book's kernels `ours` is, when the comparison takes
    /// the fastest of several at each size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours_example: Option<String>,
    /// Peers by name (`cub`, `cub_i32`, `torch`, `cupy`).
    pub peers: BTreeMap<String, Timing>,
}

/// How one peer is named and drawn: an entry of `bench/peers/peers.toml`,
/// copied into the report so that pages take names and colours from data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerInfo {
    /// The key of its timings in [`Row::peers`] (the `impl` of its lines).
    pub key: String,
    /// Its full name (chart legend, tooltips): `CUB DeviceReduce::Sum`.
    pub label: String,
    /// Its short name (table headings): `CUB`.
    pub short: String,
    /// Its chart colour, `#RRGGBB`.
    pub colour: String,
    /// Whether the chart draws it (a variant of another peer may be in the
    /// table only).
    #[serde(default)]
    pub chart: bool,
}

/// One problem's entry of `bench/peers/peers.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemPeers {
    /// The book's example compared (`reductions/fast_reduce`), or a list
    /// of them, of which the fastest correct one at each size is compared.
    pub ours: Ours,
    /// The peer the ratio column divides by (`cub`).
    pub reference: String,
    /// The command (from the repository root) that times the peers and
    /// writes their JSON lines to the file it is given last;
    /// `bench/gpu-session.sh` runs it.
    #[serde(default)]
    pub harness: Option<String>,
    /// The peers, in table order.
    pub peer: Vec<PeerInfo>,
}

/// One book example, or several.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Ours {
    /// One example.
    One(String),
    /// Several: the fastest correct one at each size.
    Many(Vec<String>),
}

impl Ours {
    /// The example ids, in order.
    pub fn ids(&self) -> Vec<String> {
        match self {
            Ours::One(id) => vec![id.clone()],
            Ours::Many(ids) => ids.clone(),
        }
    }
}

/// Reads `bench/peers/peers.toml`: the peers of every problem, by problem.
pub fn load_config(text: &str) -> anyhow::Result<BTreeMap<String, ProblemPeers>> {
    let config: BTreeMap<String, ProblemPeers> = toml::from_str(text)?;
    for (problem, entry) in &config {
        anyhow::ensure!(
            entry.peer.iter().any(|p| p.key == entry.reference),
            "[{problem}]: reference `{}` is not one of its peers",
            entry.reference
        );
        for p in &entry.peer {
            anyhow::ensure!(
                p.colour.len() == 7
                    && p.colour.starts_with('#')
                    && p.colour[1..].bytes().all(|b| b.is_ascii_hexdigit()),
                "[{problem}] peer `{}`: colour `{}` is not #RRGGBB",
                p.key,
                p.colour
            );
        }
    }
    Ok(config)
}

/// The stored comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Schema version (1).
    pub schema: u32,
    /// Problem compared (`sum_f32`).
    pub problem: String,
    /// The book's example in the comparison.
    pub ours_example: String,
    /// Its key when measured: the comparison is stale when the example changes.
    pub ours_key: String,
    /// When several of the book's kernels are compared (the fastest at
    /// each size), every one's id and key; empty for one kernel.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ours_keys: BTreeMap<String, String>,
    /// GPU name.
    pub gpu: String,
    /// Datasheet peak, GB/s.
    #[serde(with = "crate::nonfinite")]
    pub peak_gbs: f64,
    /// Ceilings measured with the book's kernel.
    pub ceilings: Option<Ceilings>,
    /// Versions: driver, CUDA runtime, CUB, torch, cupy.
    pub versions: BTreeMap<String, String>,
    /// When the book's kernel was measured (RFC 3339).
    pub measured_at: String,
    /// Whether the peers were timed in the same measuring session as the
    /// book's kernel (the GPU session combines them with
    /// `cuda-runner peers --same-session`); absent when that is not known,
    /// and the page then does not claim it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_session: Option<bool>,
    /// One row per size, ascending.
    pub rows: Vec<Row>,
    /// The peers' names and colours, in table order (empty in reports
    /// written before they were kept: pages then show the keys).
    #[serde(default)]
    pub peer_info: Vec<PeerInfo>,
    /// The key of the peer the ratio column divides by (empty in older
    /// reports: `cub`).
    #[serde(default)]
    pub reference: String,
}

/// A line of the peers' JSON-lines output.
#[derive(Debug, Deserialize)]
struct PeerLine {
    #[serde(rename = "impl")]
    implementation: String,
    n: Option<u64>,
    median_us: Option<f64>,
    min_us: Option<f64>,
    max_us: Option<f64>,
    samples: Option<u32>,
    rel_spread: Option<f64>,
    noisy: Option<bool>,
    pass: Option<bool>,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

/// Builds the report from the book's records of its kernels (one, or
/// several of which the fastest correct one at each size is taken) and the
/// peers' JSON lines; sizes are those both sides measured or either did.
pub fn combine(
    problem: &str,
    candidates: &[Record],
    peers_jsonl: &str,
    config: &ProblemPeers,
) -> anyhow::Result<Report> {
    let ours = candidates
        .first()
        .ok_or_else(|| anyhow::anyhow!("no record of the book's kernel to compare"))?;
    // A peer line's own byte count first (row-wise problems depend on the
    // rows), else the problem's count for one row of n.
    let bytes = |n: u64, line: &PeerLine| {
        line.rest
            .get("bytes")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or_else(|| {
                crate::problem::lookup(problem).map_or(4 * n + 4, |p| {
                    p.bytes(&crate::problem::Instance {
                        shape: crate::problem::Shape::flat(n),
                        dtype: p.dtypes()[0],
                    })
                })
            })
    };
    let several = candidates.len() > 1;
    for r in candidates {
        anyhow::ensure!(
            r.problem == ours.problem,
            "{} solves {}, not {} as {} does: only kernels of one problem (and version) can be compared",
            r.example,
            r.problem,
            ours.problem,
            ours.example
        );
    }
    let mut rows: BTreeMap<u64, Row> = BTreeMap::new();
    // A kernel that failed anywhere (an edge check, another size) is never
    // "ours", however fast.
    for record in candidates
        .iter()
        .filter(|r| !several || r.status == Status::Pass)
    {
        for s in &record.sizes {
            let timing = Timing {
                median_us: s.median_us,
                min_us: s.min_us,
                max_us: s.max_us,
                samples: s.samples,
                rel_spread: s.rel_spread,
                noisy: s.labels.iter().any(|l| l == crate::figures::NOISY),
                pass: s.pass,
            };
            let row = rows.entry(s.n.0).or_insert_with(|| Row {
                n: s.n,
                bytes: s.bytes,
                ceiling_gbs: None,
                ours: None,
                ours_example: None,
                peers: BTreeMap::new(),
            });
            // A correct kernel beats a wrong one; then the faster wins.
            let better = row
                .ours
                .as_ref()
                .is_none_or(|o| (timing.pass, -timing.median_us) > (o.pass, -o.median_us));
            if better {
                row.ours = Some(timing);
                row.bytes = s.bytes;
                row.ceiling_gbs = s.ceiling_gbs;
                row.ours_example = several.then(|| record.example.clone());
            }
        }
    }
    let mut versions = BTreeMap::new();
    for (i, line) in peers_jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let p: PeerLine =
            serde_json::from_str(line).map_err(|e| anyhow::anyhow!("peers line {}: {e}", i + 1))?;
        if p.implementation == "meta" {
            for key in [
                "driver",
                "cuda_runtime",
                "cub_version",
                "torch",
                "cupy",
                "nvcc",
            ] {
                if let Some(v) = p.rest.get(key) {
                    let text = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    versions.insert(key.to_string(), text);
                }
            }
            continue;
        }
        let (Some(n), Some(median_us)) = (p.n, p.median_us) else {
            continue;
        };
        let line_bytes = bytes(n, &p);
        let row = rows.entry(n).or_insert_with(|| Row {
            n: Size(n),
            bytes: line_bytes,
            ceiling_gbs: None,
            ours: None,
            ours_example: None,
            peers: BTreeMap::new(),
        });
        row.peers.insert(
            p.implementation,
            Timing {
                median_us,
                min_us: p.min_us.unwrap_or(median_us),
                max_us: p.max_us.unwrap_or(median_us),
                samples: p.samples.unwrap_or(0),
                rel_spread: p.rel_spread.unwrap_or(0.0),
                noisy: p.noisy.unwrap_or(false),
                pass: p.pass.unwrap_or(false),
            },
        );
    }
    let gpu = ours.gpu.as_ref();
    Ok(Report {
        schema: 1,
        problem: problem.to_string(),
        ours_example: ours.example.clone(),
        ours_key: ours.key.clone(),
        ours_keys: if several {
            candidates
                .iter()
                .map(|r| (r.example.clone(), r.key.clone()))
                .collect()
        } else {
            BTreeMap::new()
        },
        gpu: gpu.map(|g| g.name.clone()).unwrap_or_default(),
        peak_gbs: gpu.map(|g| g.peak_gbs).unwrap_or(0.0),
        ceilings: ours.ceilings.clone(),
        versions,
        measured_at: ours.measured_at.clone(),
        one_session: None,
        rows: rows.into_values().collect(),
        peer_info: config.peer.clone(),
        reference: config.reference.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `example` timed at N = 2^10 and 2^18 in the given
    /// microseconds, passing or not.
    fn record(example: &str, us: [f64; 2], pass: bool) -> Record {
        use crate::record::test_records;
        let mut r = test_records::record(example, &format!("key-{example}"));
        if !pass {
            r.status = Status::Wrong;
        }
        r.problem = "softmax_rows v1".into();
        r.sizes = vec![
            test_records::size(1 << 10, 1 << 29, us[0], pass),
            test_records::size(1 << 18, 1 << 29, us[1], pass),
        ];
        r
    }

    fn config(ours: &str) -> ProblemPeers {
        let text = format!(
            "[p]\nours = {ours}\nreference = \"t\"\n[[p.peer]]\nkey = \"t\"\nlabel = \"T\"\nshort = \"T\"\ncolour = \"#123456\"\n"
        );
        load_config(&text).unwrap().remove("p").unwrap()
    }

    // With several of our kernels, each size takes the fastest correct one
    // and names it; every candidate's key is kept for staleness.
    #[test]
    fn several_kernels_compare_the_fastest_correct_one_at_each_size() {
        let warp = record("ch/warp", [100.0, 900.0], true);
        let block = record("ch/block", [150.0, 300.0], true);
        let wrong = record("ch/wrong", [50.0, 50.0], false);
        let lines =
            "{\"impl\": \"t\", \"n\": 1024, \"median_us\": 120.0, \"pass\": true, \"bytes\": 7}\n";
        let r = combine(
            "softmax_rows",
            &[warp, block, wrong],
            lines,
            &config("[\"ch/warp\", \"ch/block\", \"ch/wrong\"]"),
        )
        .unwrap();
        let picked: Vec<(Option<&str>, f64)> = r
            .rows
            .iter()
            .map(|row| {
                (
                    row.ours_example.as_deref(),
                    row.ours.as_ref().unwrap().median_us,
                )
            })
            .collect();
        assert_eq!(
            picked,
            [(Some("ch/warp"), 100.0), (Some("ch/block"), 300.0)]
        );
        assert_eq!(r.ours_keys.len(), 3);
        assert_eq!(r.rows[0].bytes, 1 << 29, "our record's bytes win");
        // A kernel of another problem is refused.
        let mut other = record("ch/other", [1.0, 1.0], true);
        other.problem = "sum_f32 v2".into();
        let cfg = config("[\"ch/warp\", \"ch/other\"]");
        let err = combine(
            "softmax_rows",
            &[record("ch/warp", [1.0, 1.0], true), other],
            "",
            &cfg,
        );
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("only kernels of one problem")
        );
    }

    // One kernel keeps the report as it was: no per-row names, no key map.
    #[test]
    fn one_kernel_keeps_the_single_form() {
        let r = combine(
            "sum_f32",
            &[record("ch/only", [1.0, 2.0], true)],
            "",
            &config("\"ch/only\""),
        )
        .unwrap();
        assert!(r.ours_keys.is_empty());
        assert!(r.rows.iter().all(|row| row.ours_example.is_none()));
        assert_eq!(r.ours_example, "ch/only");
    }
}
