//! The comparison with vendor libraries: the book's best kernel for a
//! problem and its peers (CUB, torch, cupy) timed with the same cold method
//! in one run on one GPU (`bench/peers/`). Stored as
//! `results/peers/<problem>.json` and rendered on the comparison page.

use crate::dims::Dims;
use crate::method::Ceilings;
use crate::record::{Record, SizeResult, Status};
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
    /// Elements; for a problem of several dimensions, the product of
    /// their values (`dims`), as records keep it.
    pub n: Size,
    /// The values of each dimension, for a problem of several (as records
    /// keep them: `{"M": 4096, "N": 4096, "K": 4096}`); absent for one
    /// dimension and in every report made before it was kept.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::problem::dims_map"
    )]
    pub dims: Option<Dims>,
    /// Bytes the algorithm must move.
    pub bytes: u64,
    /// The floating-point operations one run does, for a problem whose
    /// primary figure counts them ([`Report::figure`] `tflops`): TFLOP/s
    /// of any timing at this size is `flop` over its median.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::nonfinite::option"
    )]
    pub flop: Option<f64>,
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
    /// The problem's primary figure where it is not GB/s (`tflops`), as
    /// its records give it ([`crate::figures::primary`]); absent for a
    /// problem of bandwidth, as in every report made before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<String>,
    /// The named ceiling of [`Report::ceilings`] that figure is held to
    /// (`fp32_fma`), as its records' `ceiling` names it; absent with
    /// `figure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<String>,
}

impl Row {
    /// An empty row of size `n` (its dimensions' values `dims`) that
    /// moves `bytes`.
    fn empty(n: u64, dims: Option<Dims>, bytes: u64) -> Row {
        Row {
            n: Size(n),
            dims,
            bytes,
            flop: None,
            ceiling_gbs: None,
            ours: None,
            ours_example: None,
            peers: BTreeMap::new(),
        }
    }

    /// The size as the problem writes it: its dimensions' values
    /// (`M=N=K=4096`, `8192x4096`), else `n` (`2^20`).
    pub fn size(&self) -> Dims {
        self.dims.unwrap_or(Dims::n(self.n.0))
    }
}

/// A peer line's `dims` (`{"M": 4096, "N": 4096, "K": 4096}`) as a size
/// of `problem`'s dimensions, in the problem's order whatever the order
/// of the line's keys (JSON objects have none); for a problem not
/// registered, its names as they come.
fn line_dims(problem: &str, value: &serde_json::Value) -> anyhow::Result<Dims> {
    let object = value
        .as_object()
        .ok_or_else(|| anyhow::anyhow!("`dims` is not a map of names to values"))?;
    let Some(declared) = crate::problem::lookup(problem).map(|p| p.dims()) else {
        return crate::problem::dims_map::deserialize(value.clone())?
            .ok_or_else(|| anyhow::anyhow!("`dims` is empty"));
    };
    let names = || Dims::describe(declared);
    anyhow::ensure!(
        object.len() == declared.len(),
        "`dims` has {} values and {problem} has the dimensions {}",
        object.len(),
        names()
    );
    let values = declared
        .iter()
        .map(|d| {
            object
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(d.name))
                .and_then(|(_, v)| v.as_u64())
                .ok_or_else(|| {
                    anyhow::anyhow!("`dims` has no whole value of `{}` ({})", d.name, names())
                })
        })
        .collect::<anyhow::Result<Vec<u64>>>()?;
    Dims::new(declared, &values).ok_or_else(|| anyhow::anyhow!("too many dimensions"))
}

/// The floating-point operations of one run at a record's size: its
/// `flop` rate times its median, `None` where it counts none.
fn flop_of(s: &SizeResult) -> Option<f64> {
    let rate = s
        .metrics
        .get(&format!("{}_per_s", crate::problem::reports::FLOP))?;
    Some((rate * s.median_us * 1e-6).round())
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
            let row = rows
                .entry(s.n.0)
                .or_insert_with(|| Row::empty(s.n.0, s.dims, s.bytes));
            row.dims = row.dims.or(s.dims);
            row.flop = row.flop.or_else(|| flop_of(s));
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
        let dims = p
            .rest
            .get("dims")
            .map(|v| line_dims(problem, v))
            .transpose()
            .map_err(|e| anyhow::anyhow!("peers line {}: {e}", i + 1))?;
        let row = rows
            .entry(n)
            .or_insert_with(|| Row::empty(n, dims, line_bytes));
        if let (Some(ours), Some(theirs)) = (row.dims, dims) {
            anyhow::ensure!(
                ours.values() == theirs.values(),
                "peers line {}: size {theirs} is not the records' {ours} of the same n = {n}",
                i + 1
            );
        }
        row.dims = row.dims.or(dims);
        row.flop = row
            .flop
            .or_else(|| p.rest.get("flop").and_then(serde_json::Value::as_f64));
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
    // The figure and its ceiling where the problem's is not GB/s.
    let first = ours.sizes.first();
    let figure = first.and_then(|s| s.figure.clone());
    let ceiling = figure
        .as_ref()
        .and_then(|_| first.and_then(|s| s.ceiling.clone()));
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
        figure,
        ceiling,
    })
}

#[cfg(test)]
mod tests;
