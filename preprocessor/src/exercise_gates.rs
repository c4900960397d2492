//! The measured side of an exercise stage, from the store: the figures of
//! starter and solution side by side at the stage's size, the counts read
//! off their stored launches, and every gate judged for both. A figure or
//! gate without current data is *not measured*, with the reason and
//! whether it only waits for a GPU to measure or profile it.

use crate::figures;
use crate::outcome::status_words;
use crate::results::Results;
use cuda_measured_core::dims::Dims;
use cuda_measured_core::exercise::{self, Baseline, Count, GateKind, SassWhat, Stage};
use cuda_measured_core::record::{Record, SizeResult, Status};
use cuda_measured_core::sass_counts;
use session::Side;

/// Starter and solution, side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct StageTable {
    /// The size every figure is of.
    pub size: Dims,
    /// The example ids of starter and solution.
    pub ids: [String; 2],
    /// Measured figures and counts.
    pub rows: Vec<FigureRow>,
    /// The gates, correctness first.
    pub gates: Vec<GateRow>,
}

/// A row of figures.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureRow {
    /// What the row shows (markdown code allowed).
    pub heading: String,
    /// Starter's and solution's cells.
    pub cells: [Cell; 2],
}

/// A figure, or `not measured` with the reason as its title.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// What the cell reads.
    pub text: String,
    /// Where it comes from, or why it is missing.
    pub title: Option<String>,
    /// Whether it is missing.
    pub missing: bool,
}

/// A gate, judged for starter and solution.
#[derive(Debug, Clone, PartialEq)]
pub struct GateRow {
    /// What it asks, in words.
    pub needs: String,
    /// 1-based line of the gate in the stage file.
    pub line: usize,
    /// Starter's and solution's verdicts.
    pub cells: [Judged; 2],
}

/// A gate's verdict on one kernel.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    /// Within the bound; the figure measured and where it comes from.
    Passed(String, String),
    /// Outside the bound; the figure measured and where it comes from.
    Failed(String, String),
    /// No current data.
    NotMeasured(Unavailable),
}

/// Why a figure is missing.
#[derive(Debug, Clone, PartialEq)]
pub struct Unavailable {
    /// What is missing and how to get it.
    pub reason: String,
    /// Whether measuring or profiling on a GPU machine settles it.
    pub waits: bool,
}

/// The measured side of `stage`.
pub fn table(stage: &Stage, results: &Results<'_>) -> StageTable {
    let ids = [stage.starter.id(), stage.solution.id()];
    let size = stage.size;
    let cell = |id: &str, show: &dyn Fn(&Record, &SizeResult) -> Option<String>| match timing(
        id, size, results,
    ) {
        Ok((record, s)) => match show(record, s) {
            Some(text) => Cell {
                text,
                title: Some(source(id, size, record)),
                missing: false,
            },
            None => Cell {
                text: "n/a".into(),
                title: None,
                missing: false,
            },
        },
        Err(why) => Cell {
            text: "not measured".into(),
            title: Some(why.reason),
            missing: true,
        },
    };
    let row = |heading: &str, show: &dyn Fn(&Record, &SizeResult) -> Option<String>| FigureRow {
        heading: heading.to_string(),
        cells: ids.map(|id| cell(id, show)),
    };
    // The rate and the ceiling the stage's problem reports (TFLOP/s and
    // the FP32 FMA ceiling for a matrix multiply, GB/s and the read or
    // copy ceiling for a bandwidth problem), read off whichever of the two
    // records is measured.
    let measured = ids.iter().find_map(|id| timing(id, size, results).ok());
    let flops = measured.is_some_and(|(_, s)| cuda_measured_core::figures::primary(s) == "tflops");
    let ceiling = measured.map_or("read", |(r, _)| crate::render::ceiling_kind(r));
    let rate = if flops {
        row("TFLOP/s", &|_, s| {
            Some(crate::render::kind_cell(s, "tflops"))
        })
    } else {
        row("GB/s", &|_, s| Some(figures::gbs_number(s.gbs)))
    };
    let mut rows = vec![
        row("median time", &|_, s| Some(figures::time_us(s.median_us))),
        rate,
        row(&format!("% of the {ceiling} ceiling"), &|_, s| {
            s.pct_ceiling.map(figures::percent)
        }),
        row("launch", &|_, s| {
            Some(
                s.launches
                    .iter()
                    .map(|l| l.split_once(": ").map_or(l.as_str(), |(_, plan)| plan))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        }),
    ];
    rows.extend(
        stage
            .counts
            .iter()
            .map(|c| count_row(c, ids, size, results)),
    );
    let gates = stage
        .gates
        .iter()
        .map(|gate| GateRow {
            needs: needs(&gate.kind, stage, results),
            line: gate.line,
            cells: ids.map(|id| judge(&gate.kind, id, stage, results)),
        })
        .collect();
    StageTable {
        size,
        ids: ids.map(str::to_string),
        rows,
        gates,
    }
}

/// Why a count row's cell has no count: the kernel has no current figures
/// there, or its stored launch cannot be read.
#[derive(Debug, thiserror::Error)]
enum CountError {
    /// No current figures ([`Unavailable::reason`]).
    #[error("{0}")]
    Unavailable(String),
    /// The record stores no launch.
    #[error("no launch stored")]
    NoLaunch,
    /// The stored launch is not `GRID x BLOCK`.
    #[error("the stored launch `{0}` does not read as GRID x BLOCK")]
    NotGridBlock(String),
}

/// A count row: how many of something each kernel's first stored launch
/// makes, the solution's against the starter's.
fn count_row(count: &Count, ids: [&str; 2], size: Dims, results: &Results<'_>) -> FigureRow {
    let per = [count.starter, count.solution];
    let of = |i: usize| -> Result<(u64, String), CountError> {
        let (_, s) =
            timing(ids[i], size, results).map_err(|u| CountError::Unavailable(u.reason))?;
        let launch = s.launches.first().ok_or(CountError::NoLaunch)?;
        let (grid, block) =
            grid_and_block(launch).ok_or_else(|| CountError::NotGridBlock(launch.to_string()))?;
        let title = format!(
            "one per {} of the stored launch, {grid} x {block}",
            per[i].unit()
        );
        Ok((per[i].of(grid, block), title))
    };
    let found = [of(0), of(1)];
    let ratio = match (&found[0], &found[1]) {
        (Ok((a, _)), Ok((b, _))) if *a > 0 && *b > 0 && a != b => Some(if a > b {
            format!(" ({} fewer)", figures::ratio(*a as f64 / *b as f64))
        } else {
            format!(" ({} more)", figures::ratio(*b as f64 / *a as f64))
        }),
        _ => None,
    };
    let cells = [0, 1].map(|i| match &found[i] {
        Ok((n, title)) => Cell {
            text: format!(
                "{}{}",
                grouped(*n),
                if i == 1 {
                    ratio.as_deref().unwrap_or("")
                } else {
                    ""
                }
            ),
            title: Some(title.clone()),
            missing: false,
        },
        Err(reason) => Cell {
            text: "not measured".into(),
            title: Some(reason.to_string()),
            missing: true,
        },
    });
    FigureRow {
        heading: count.what.clone(),
        cells,
    }
}

/// The grid and block of a stored launch: `kernel: 16384 x 256, 1024 B shared`.
fn grid_and_block(launch: &str) -> Option<(u64, u64)> {
    let plan = launch.split_once(": ").map_or(launch, |(_, plan)| plan);
    let dims = plan.split(',').next()?;
    let (grid, block) = dims.split_once(" x ")?;
    Some((grid.trim().parse().ok()?, block.trim().parse().ok()?))
}

/// `4,194,304`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A bound as written: `50`, `0.8`, `12.5`.
fn bound(v: f64) -> String {
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What a baseline is called in a sentence.
fn baseline_words(over: &Baseline) -> String {
    match over {
        Baseline::Starter => "the starter".into(),
        Baseline::Stage { name, .. } => {
            let stage = name.rsplit('/').next().unwrap_or(name);
            match stage
                .strip_prefix("stage")
                .filter(|n| n.parse::<u32>().is_ok())
            {
                Some(number) => format!("stage {number}'s solution"),
                None => format!("the solution of `{stage}`"),
            }
        }
    }
}

/// The example id a baseline compares with.
fn baseline_id<'s>(over: &'s Baseline, stage: &'s Stage) -> &'s str {
    match over {
        Baseline::Starter => stage.starter.id(),
        Baseline::Stage { solution, .. } => solution.id(),
    }
}

/// `≥ 50%`, `≤ 0.8×`, `between 1 and 2`.
fn bounds_words(min: Option<f64>, max: Option<f64>, unit: &str) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("between {}{unit} and {}{unit}", bound(a), bound(b)),
        (Some(a), None) => format!("≥ {}{unit}", bound(a)),
        (None, Some(b)) => format!("≤ {}{unit}", bound(b)),
        (None, None) => "any".into(),
    }
}

/// What a gate asks, in words.
pub fn needs(kind: &GateKind, stage: &Stage, results: &Results<'_>) -> String {
    match kind {
        GateKind::Correct => format!("correct at {} and at every edge size", stage.size.words()),
        GateKind::Profile { metric, min, max } => {
            let (label, unit) = exercise::metric_label(metric);
            format!("{label} {}", bounds_words(*min, *max, unit))
        }
        GateKind::ProfileRatio {
            metric,
            over,
            min,
            max,
        } => {
            let (label, _) = exercise::metric_label(metric);
            format!(
                "{label} {} those of {}",
                bounds_words(*min, *max, "×"),
                baseline_words(over)
            )
        }
        GateKind::Speedup { over, min } => {
            format!(
                "at least {}× as fast as {} (one session)",
                bound(*min),
                baseline_words(over)
            )
        }
        GateKind::Sass { count, min, max } => {
            format!("{} {}", count.words(), bounds_words(*min, *max, ""))
        }
        GateKind::Time { max_us } => format!("median time ≤ {} µs", bound(*max_us)),
        GateKind::PctCeiling { min } => format!("at least {}% of the read ceiling", bound(*min)),
        GateKind::Peer { peer, max } => {
            let name = peer_name(peer, stage, results);
            if *max == 1.0 {
                format!("as fast as {name} or faster (one session)")
            } else {
                format!("median time ≤ {}× {name}'s (one session)", bound(*max))
            }
        }
    }
}

/// The short name of a peer as the stored comparison names it.
fn peer_name(peer: &str, stage: &Stage, results: &Results<'_>) -> String {
    problem_of(stage.solution.id(), results)
        .and_then(|problem| crate::artifacts::peers::read(results.stored(), &problem).ok())
        .and_then(|report| {
            report
                .peer_info
                .iter()
                .find(|p| p.key == peer)
                .map(|p| p.short.clone())
        })
        .unwrap_or_else(|| peer.to_string())
}

/// The problem an example of the book solves.
fn problem_of(id: &str, results: &Results<'_>) -> Option<String> {
    let index = results.catalog().by_id(id)?;
    let example = results.catalog().entries[index].example()?;
    Some(example.declaration.problem.clone())
}

/// The current figures of `id` at `size`, or why there are none.
fn timing<'a>(
    id: &str,
    size: Dims,
    results: &Results<'a>,
) -> Result<(&'a Record, &'a SizeResult), Unavailable> {
    results.at(id, size).map_err(|reason| Unavailable {
        reason: reason.to_string(),
        waits: results.waits_on(id, Some(size)),
    })
}

/// Where a figure of `id` comes from.
fn source(id: &str, size: Dims, record: &Record) -> String {
    let gpu = record.gpu.as_ref().map_or("no GPU", |g| g.name.as_str());
    format!(
        "{id} at {} on {gpu}, measured {}",
        size.words(),
        figures::date(&record.measured_at)
    )
}

/// A profiler counter of `id`: value, as shown, and source. For an example
/// of several kernels (several launches) a counter that counts, one whose
/// Nsight Compute name ends in `.sum` (instructions, DRAM bytes, sectors,
/// bank conflicts, time), is the sum over them, what the example as a
/// whole did; a rate or an average of one kernel (`sm`, `dram`,
/// `occupancy`, `ld_sectors_per_request`) has no such total and is refused.
fn counter(
    id: &str,
    short: &str,
    size: Dims,
    results: &Results<'_>,
) -> Result<(f64, String, String), Unavailable> {
    let metric = cuda_measured_core::profile::metric_named(short).unwrap_or_default();
    let (profile, found) =
        crate::artifacts::profile::values(id, &metric, size, results).map_err(|reason| {
            Unavailable {
                reason: reason.to_string(),
                waits: crate::artifacts::profile::awaits(id, &metric, size, results),
            }
        })?;
    match found.as_slice() {
        [(_, m)] => Ok((
            m.value,
            cuda_measured_core::profile::shown(m),
            crate::artifacts::profile::title(&profile, &metric),
        )),
        many if metric.ends_with(".sum") && many.iter().all(|(_, m)| m.unit == many[0].1.unit) => {
            let total = cuda_measured_core::profile::Metric {
                unit: many[0].1.unit.clone(),
                value: many.iter().map(|(_, m)| m.value).sum(),
            };
            Ok((
                total.value,
                format!(
                    "{} over {} kernels",
                    cuda_measured_core::profile::shown(&total),
                    many.len()
                ),
                crate::artifacts::profile::title(&profile, &metric),
            ))
        }
        many => Err(Unavailable {
            reason: format!(
                "the profile of `{id}` has {} kernels with `{short}`, a rate or average of each kernel with no total: a gate on an example of several kernels reads a counter that adds up (instructions, dram_read, dram_write, ld_sectors, st_sectors, bank_conflicts, time)",
                many.len()
            ),
            waits: false,
        }),
    }
}

fn within(v: f64, min: Option<f64>, max: Option<f64>) -> bool {
    min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m)
}

fn verdict(pass: bool, figure: String, title: String) -> Judged {
    if pass {
        Judged::Passed(figure, title)
    } else {
        Judged::Failed(figure, title)
    }
}

/// A gate's verdict on example `id` of `stage`.
pub fn judge(kind: &GateKind, id: &str, stage: &Stage, results: &Results<'_>) -> Judged {
    judged(kind, id, stage, results).unwrap_or_else(Judged::NotMeasured)
}

fn judged(
    kind: &GateKind,
    id: &str,
    stage: &Stage,
    results: &Results<'_>,
) -> Result<Judged, Unavailable> {
    let size = stage.size;
    Ok(match kind {
        GateKind::Correct => {
            let record = results.record(id).map_err(|reason| Unavailable {
                reason: reason.to_string(),
                waits: results.waits_on(id, None),
            })?;
            let mut words = match record.status {
                Status::Pass => "correct".to_string(),
                status => status_words(status),
            };
            if record.status != Status::Pass && record.as_expected() {
                words.push_str(" (expected)");
            }
            let title = if record.message.is_empty() {
                format!("{id}, measured {}", figures::date(&record.measured_at))
            } else {
                record.message.clone()
            };
            match sanitizer_finding(id, size, results) {
                Some((found, why)) if record.status == Status::Pass => Judged::Failed(found, why),
                _ => verdict(record.status == Status::Pass, words, title),
            }
        }
        GateKind::Profile { metric, min, max } => {
            let (value, shown, title) = counter(id, metric, size, results)?;
            verdict(within(value, *min, *max), shown, title)
        }
        GateKind::ProfileRatio {
            metric,
            over,
            min,
            max,
        } => {
            let other = baseline_id(over, stage);
            let (value, shown, _) = counter(id, metric, size, results)?;
            let (base, base_shown, _) = counter(other, metric, size, results)?;
            let ratio = value / base;
            verdict(
                within(ratio, *min, *max),
                figures::ratio(ratio),
                format!(
                    "{shown} against {base_shown} of {other} (Nsight Compute, {})",
                    size.words()
                ),
            )
        }
        GateKind::Speedup { over, min } => {
            let other = baseline_id(over, stage);
            let (record, own) = timing(id, size, results)?;
            let (base_record, base) = timing(other, size, results)?;
            let speedup = base.median_us / own.median_us;
            let one = session::same_session(record, base_record);
            let passed =
                session::verdict(speedup, *min, Side::AtLeast, one).ok_or_else(|| Unavailable {
                    reason: session::remedy(id, record, other, base_record),
                    waits: false,
                })?;
            verdict(
                passed,
                figures::ratio(speedup),
                format!(
                    "{} of {other} over {} of {id}, {}{}",
                    figures::time_us(base.median_us),
                    figures::time_us(own.median_us),
                    source("both", size, record),
                    if one {
                        ", one session"
                    } else {
                        ", two sessions"
                    }
                ),
            )
        }
        GateKind::Time { max_us } => {
            let (record, own) = timing(id, size, results)?;
            verdict(
                own.median_us <= *max_us,
                figures::time_us(own.median_us),
                source(id, size, record),
            )
        }
        GateKind::PctCeiling { min } => {
            let (record, own) = timing(id, size, results)?;
            let pct = own.pct_ceiling.ok_or_else(|| Unavailable {
                reason: format!(
                    "`{id}` has no % of the read ceiling at {}: measure it again",
                    size.words()
                ),
                waits: false,
            })?;
            verdict(pct >= *min, figures::percent(pct), source(id, size, record))
        }
        GateKind::Peer { peer, max } => {
            let chain = peer_chain(peer, id, size, results)?;
            let passed = session::verdict(chain.ratio, *max, Side::AtMost, chain.one_session)
                .ok_or_else(|| Unavailable {
                    reason: chain.unjudged.clone(),
                    waits: false,
                })?;
            // A time ratio, not a speed-up as the other gates show: say
            // whose time it is a multiple of.
            verdict(
                passed,
                format!(
                    "{} {}'s time",
                    figures::ratio(chain.ratio),
                    peer_name(peer, stage, results)
                ),
                chain.title,
            )
        }
        GateKind::Sass { count, min, max } => {
            let (n, title) = sass_count(id, count, results)?;
            verdict(within(n as f64, *min, *max), n.to_string(), title)
        }
    })
}

/// A kernel's time over a peer's, as a chain of same-session ratios:
/// the kernel over the book's kernel of the stored comparison, both from
/// the records (one session when the book was measured in one run), times
/// the book's kernel over the peer, both from `results/peers/PROBLEM.json`
/// (timed in one session). The kernel of the comparison itself needs only
/// the second.
struct PeerChain {
    ratio: f64,
    one_session: bool,
    title: String,
    unjudged: String,
}

fn peer_chain(
    peer: &str,
    id: &str,
    size: Dims,
    results: &Results<'_>,
) -> Result<PeerChain, Unavailable> {
    let refuse = |reason: String| Unavailable {
        reason,
        waits: false,
    };
    let (record, own) = timing(id, size, results)?;
    let problem =
        problem_of(id, results).ok_or_else(|| refuse(results.unknown_id(id).to_string()))?;
    let file = results.stored().shown(&format!("peers/{problem}.json"));
    let report = crate::artifacts::peers::read(results.stored(), &problem)
        .map_err(|e| refuse(e.to_string()))?;
    let gpu = record.gpu.as_ref().map_or("no GPU", |g| g.name.as_str());
    if report.gpu != gpu {
        return Err(refuse(format!(
            "{file} was measured on {}, `{id}` on {gpu}: compare on one GPU",
            report.gpu
        )));
    }
    if report.one_session != Some(true) {
        return Err(refuse(format!(
            "{file} does not say that its peers were timed in the session of the book's kernel: make it again with bench/gpu-session.sh OUTDIR peers"
        )));
    }
    if let Some(stale) = crate::artifacts::peers::staleness(&report, results) {
        return Err(Unavailable {
            reason: format!("{file} is {stale}: bench/gpu-session.sh OUTDIR peers makes it again"),
            waits: true,
        });
    }
    let row = report.rows.iter().find(|row| row.n.0 == size.n_value());
    let theirs = row.and_then(|row| row.peers.get(peer)).ok_or_else(|| {
        let keys: Vec<&str> = report
            .rows
            .first()
            .map(|row| row.peers.keys().map(String::as_str).collect())
            .unwrap_or_default();
        refuse(format!(
            "{file} has no `{peer}` at {} (its peers: {})",
            size.words(),
            keys.join(", ")
        ))
    })?;
    let ours = row.and_then(|row| row.ours.as_ref()).ok_or_else(|| {
        refuse(format!(
            "{file} has no time of the book's kernel at {}",
            size.words()
        ))
    })?;
    let ours_id = row
        .and_then(|row| row.ours_example.clone())
        .unwrap_or_else(|| report.ours_example.clone());
    let in_peers = ours.median_us / theirs.median_us;
    let peers_title = format!(
        "{ours_id} over {peer} in {file}, one session, measured {}: {} against {}",
        figures::date(&report.measured_at),
        figures::time_us(ours.median_us),
        figures::time_us(theirs.median_us)
    );
    if ours_id == id {
        return Ok(PeerChain {
            ratio: in_peers,
            one_session: true,
            title: peers_title,
            unjudged: String::new(),
        });
    }
    let (ours_record, ours_book) = timing(&ours_id, size, results)?;
    let one_session = session::same_session(record, ours_record);
    Ok(PeerChain {
        ratio: own.median_us / ours_book.median_us * in_peers,
        one_session,
        title: format!(
            "{} of {id} over {} of {ours_id} ({}), times {peers_title}",
            figures::time_us(own.median_us),
            figures::time_us(ours_book.median_us),
            if one_session {
                "one session of the book"
            } else {
                "two sessions of the book"
            }
        ),
        unjudged: session::remedy(id, record, &ours_id, ours_record),
    })
}

/// A count of the current SASS listing of `id`'s one kernel, with where
/// it comes from.
fn sass_count(
    id: &str,
    count: &SassWhat,
    results: &Results<'_>,
) -> Result<(usize, String), Unavailable> {
    let refuse = |reason: String, waits: bool| Unavailable { reason, waits };
    let Some((_, key)) = results.example(id) else {
        return Err(refuse(results.unknown_id(id).to_string(), false));
    };
    let file = results
        .stored()
        .shown(&cuda_measured_core::sass::relative_path(id));
    let listing = crate::artifacts::sass::read(results.stored(), id)
        .map_err(|e| refuse(e.to_string(), true))?;
    if listing.key != key {
        return Err(refuse(
            format!(
                "{file} was made for an earlier version of `{id}`; {}",
                crate::artifacts::sass::RELIST
            ),
            true,
        ));
    }
    let [kernel] = listing.kernels.as_slice() else {
        return Err(refuse(
            format!(
                "{file} has {} kernels: a SASS gate reads an example of one kernel",
                listing.kernels.len()
            ),
            false,
        ));
    };
    let reading = sass_counts::read(kernel, None);
    let n = match count {
        SassWhat::Instructions => reading.kernel.instructions,
        SassWhat::Division => reading.kernel.division,
        SassWhat::SharedBytes => kernel.shared as usize,
        SassWhat::Opcode(op) => reading
            .code
            .iter()
            .filter(|i| SassWhat::matches_opcode(op, i.opcode()))
            .count(),
    };
    Ok((
        n,
        format!(
            "{} of {} ({file}, {} {}, {})",
            count.words().replace('`', ""),
            kernel.name,
            listing.arch,
            listing.tool,
            figures::date(&listing.made_at)
        ),
    ))
}

/// A stored compute-sanitizer report of the current code of `id` at
/// `size` that found something: the check and what it counted.
fn sanitizer_finding(id: &str, size: Dims, results: &Results<'_>) -> Option<(String, String)> {
    let (_, key) = results.example(id)?;
    cuda_measured_core::sanitizer::CHECKS
        .iter()
        .find_map(|check| {
            let report =
                crate::artifacts::sanitizer::read(results.stored(), id, check, size).ok()?;
            (report.key == key && report.errors + report.warnings > 0).then(|| {
                (
                    format!(
                        "{check}: {} error(s), {} warning(s)",
                        report.errors, report.warnings
                    ),
                    format!(
                        "{}: compute-sanitizer {check} of `{id}` at {}, {}",
                        report.summary.clone().unwrap_or_default(),
                        size.words(),
                        figures::date(&report.made_at)
                    ),
                )
            })
        })
}

pub mod render;
pub mod session;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod verdicts;
