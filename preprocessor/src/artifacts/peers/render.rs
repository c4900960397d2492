//! A `{{#peers}}` comparison ([`Peers`]) as a reader sees it: the
//! heading, the chart ([`super::chart`]), a table of every size (each
//! implementation's time, the reference over ours, our share of the
//! ceiling, marks for failed and noisy timings) and a caption with the
//! GPU, the day and the versions; greyed, saying why, when it no longer
//! describes the book's kernel. As HTML or, for other renderers, markdown.

use super::Peers;
use super::scale::Scale;
use crate::figures;
use crate::markup::Flat;
use crate::render::html::report_table;
use crate::render::markdown::{cell, table as md_table};
use crate::render::reports::{Cell, Table, stale_note};
use cuda_measured_core::peers::{PeerInfo, Report, Row, Timing};
use maud::{Markup, PreEscaped, html};

/// A `{{#peers}}` comparison: chart, table and caption. A comparison that
/// no longer describes the book's kernel is greyed (the theme greys
/// `.cm-sizes` in stale panels, chart and table alike) and says why. The
/// chart sits in a `.cm-table`, which scrolls sideways on narrow pages.
pub fn html(p: &Peers) -> Markup {
    let r = &p.report;
    let class = if p.stale.is_some() {
        "cm-panel cm-peers cm-stale"
    } else {
        "cm-panel cm-peers cm-pass"
    };
    // Drawing only fails on a report without a single timing.
    let svg = super::chart::svg(r).ok();
    html! {
        div class=(class) data-problem=(r.problem) data-example=(r.ours_example) {
            "\n"
            div.cm-head {
                span.cm-verdict { (Flat(&peers_heading(r))) }
            }
            "\n"
            @if let Some(reason) = &p.stale {
                p.cm-note { (Flat(&stale_note(reason))) }
                "\n"
            }
            @if let Some(svg) = svg {
                // cm-table: scrolls sideways on narrow pages.
                div.cm-figure.cm-table.cm-sizes { (PreEscaped(svg)) }
                "\n"
            }
            (report_table(&peers_table(r)))
            "\n"
            p.cm-caption { (Flat(&peers_caption(r))) }
            "\n"
        }
    }
}

/// A `{{#peers}}` comparison: the table alone (and why it is not current).
pub fn markdown(p: &Peers) -> String {
    let mut out = String::new();
    if let Some(reason) = &p.stale {
        out.push_str(&format!("*{}*\n\n", cell(&stale_note(reason))));
    }
    out.push_str(&md_table(&peers_table(&p.report)));
    out
}

/// Colours of peers a report names without its own (reports written
/// before `bench/peers/peers.toml` was copied into them), in turn.
const FALLBACK_COLOURS: [&str; 4] = ["#4C8BD6", "#D0487A", "#3AA05E", "#8A6FD1"];

/// The peers of a comparison in column order, with names and colours: the
/// report's own (from `bench/peers/peers.toml`), or, for older reports, the
/// keys found in its rows.
pub fn peers_of(report: &Report) -> Vec<PeerInfo> {
    if !report.peer_info.is_empty() {
        return report.peer_info.clone();
    }
    let mut keys: Vec<&String> = report.rows.iter().flat_map(|r| r.peers.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .enumerate()
        .map(|(i, key)| PeerInfo {
            key: key.clone(),
            label: key.clone(),
            short: key.clone(),
            colour: FALLBACK_COLOURS[i % FALLBACK_COLOURS.len()].to_string(),
            chart: true,
        })
        .collect()
}

/// The peer the ratio column divides by.
fn reference_of(report: &Report) -> Option<PeerInfo> {
    let peers = peers_of(report);
    let key = if report.reference.is_empty() {
        "cub"
    } else {
        report.reference.as_str()
    };
    peers
        .iter()
        .find(|p| p.key == key)
        .or_else(|| peers.first())
        .cloned()
}

/// Mark of a timing whose answer failed the problem's check.
const FAILED: (&str, &str) = ("✗", "failed the problem's check");
/// Mark of a timing that missed the noise target before its time-out.
const NOISY: (&str, &str) = (
    "~",
    "noisy: the noise target was not met before the time-out",
);

/// The name of the book's kernel in the chart and headings:
/// `fast_reduce (ours)` for `reductions/fast_reduce`.
pub fn ours_label(report: &Report) -> String {
    if report.ours_keys.len() > 1 {
        return format!(
            "ours (fastest of our kernels at each {})",
            size_word(report)
        );
    }
    let short = report
        .ours_example
        .rsplit('/')
        .next()
        .unwrap_or(&report.ours_example);
    format!("{short} (ours)")
}

/// The heading line of a comparison.
pub fn peers_heading(report: &Report) -> String {
    let names: Vec<String> = peers_of(report)
        .into_iter()
        .filter(|p| p.chart)
        .map(|p| p.short)
        .collect();
    let against = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "no peers".to_string(),
    };
    let ours = if report.ours_keys.len() > 1 {
        let ids: Vec<&str> = report.ours_keys.keys().map(String::as_str).collect();
        format!("the fastest of {}", ids.join(", "))
    } else {
        report.ours_example.clone()
    };
    format!("{}: {ours} against {against}", report.problem)
}

/// GB/s of a timing at a row's size.
pub fn gbs(row: &Row, t: &Timing) -> f64 {
    row.bytes as f64 / (t.median_us * 1e3)
}

/// How a comparison's sizes are called in headings and tooltips: `N`, or
/// `size` for a problem of several dimensions.
pub(super) fn size_word(report: &Report) -> &'static str {
    if report.rows.iter().any(|r| r.dims.is_some()) {
        "size"
    } else {
        "N"
    }
}

/// The size column's heading: `bytes` for a host-device copy, the
/// dimensions of a problem of several (`M x N x K`), as its records'
/// panels head them, else `N`.
fn size_heading(report: &Report, scale: &Scale) -> String {
    if scale.host_link {
        return "bytes".into();
    }
    match report.rows.iter().find_map(|r| r.dims) {
        Some(d) => cuda_measured_core::dims::Dims::describe(d.dims()),
        None => "N".into(),
    }
}

/// The comparison table: times per implementation, the reference over
/// ours, and our figure (GB/s, or TFLOP/s for a problem that counts its
/// FLOP) against the ceiling of the problem (read or copy, for a
/// host-device copy the pinned host link of its direction, for a matrix
/// product the FP32 FMA rate) measured with our kernel ([`Scale`]).
pub fn peers_table(report: &Report) -> Table {
    let scale = Scale::of(report);
    let at = size_word(report);
    let mut head = vec![
        // A host-device copy's size is its bytes.
        Cell::new(size_heading(report, &scale)),
        Cell::titled(
            "ours µs",
            if report.ours_keys.len() > 1 {
                format!("the fastest of our kernels at each {at} (named in the next column)")
            } else {
                report.ours_example.clone()
            },
        ),
    ];
    let several = report.ours_keys.len() > 1;
    if several {
        head.push(Cell::titled(
            "our kernel",
            format!("which of our kernels is fastest at this {at}"),
        ));
    }
    let peers = peers_of(report);
    for p in &peers {
        head.push(Cell::titled(format!("{} µs", p.short), &p.label));
    }
    let reference = reference_of(report);
    let reference_name = reference
        .as_ref()
        .map_or("the reference", |p| p.short.as_str());
    head.push(Cell::titled(
        format!("{reference_name} / ours"),
        format!("{reference_name}'s time over ours: 1.00 or more means ours is at least as fast"),
    ));
    head.push(Cell::titled(format!("ours {}", scale.unit()), scale.what()));
    head.push(Cell::titled(
        format!("% of {} ceiling", scale.kind),
        scale.ceiling_title(),
    ));
    let mut marks = Marks::default();
    let rows = report
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![Cell::new(row.size().to_string())];
            cells.push(marks.time(row.ours.as_ref()));
            if several {
                let short = row
                    .ours_example
                    .as_deref()
                    .map(|id| id.rsplit('/').next().unwrap_or(id).to_string());
                cells.push(short.map_or_else(Cell::none, Cell::new));
            }
            for p in &peers {
                cells.push(marks.time(row.peers.get(&p.key)));
            }
            let theirs = reference.as_ref().and_then(|p| row.peers.get(&p.key));
            cells.push(match (theirs, &row.ours) {
                (Some(t), Some(o)) => ratio_cell(reference_name, t.median_us, o.median_us),
                _ => Cell::none(),
            });
            let ours = row.ours.as_ref().and_then(|o| scale.value(row, o));
            cells.push(ours.map_or_else(Cell::none, |g| Cell::new(scale.number(g))));
            // A ceiling measured at this very size wins over the session's.
            cells.push(match (ours, scale.ceiling_at(row)) {
                (Some(g), Some(r)) if r > 0.0 => Cell::new(figures::percent(100.0 * g / r)),
                _ => Cell::none(),
            });
            cells
        })
        .collect();
    Table {
        head,
        rows,
        notes: marks.notes(),
    }
}

/// CUB's time over ours, to three decimals, or as many more as it takes
/// for a ratio below 1 (CUB ahead) not to read as 1.000; the tooltip gives
/// both medians and the margin.
fn ratio_cell(reference: &str, cub_us: f64, ours_us: f64) -> Cell {
    let r = cub_us / ours_us;
    let mut text = format!("{r:.3}");
    let mut decimals = 3;
    while r < 1.0 && text.starts_with('1') && decimals < 8 {
        decimals += 1;
        text = format!("{r:.decimals$}");
    }
    let side = if r < 1.0 { reference } else { "ours" };
    let margin = 100.0 * (cub_us.max(ours_us) / cub_us.min(ours_us) - 1.0);
    Cell::titled(
        text,
        format!(
            "{reference} {} over ours {}: {side} ahead by {margin:.3}%",
            figures::time_us(cub_us),
            figures::time_us(ours_us)
        ),
    )
}

/// Which marks a table used, for its notes.
#[derive(Debug, Default)]
struct Marks {
    failed: bool,
    noisy: bool,
}

impl Marks {
    /// A time cell in µs, with its marks, or `—`.
    fn time(&mut self, timing: Option<&Timing>) -> Cell {
        let Some(t) = timing else {
            return Cell::none();
        };
        let mut text = figures::us_number(t.median_us);
        let mut why = Vec::new();
        if !t.pass {
            self.failed = true;
            text.push(' ');
            text.push_str(FAILED.0);
            why.push(FAILED.1);
        }
        if t.noisy {
            self.noisy = true;
            text.push(' ');
            text.push_str(NOISY.0);
            why.push(NOISY.1);
        }
        let range = format!(
            "{}, {} samples, spread {}",
            figures::time_range_us(t.min_us, t.max_us),
            t.samples,
            figures::spread(t.rel_spread)
        );
        why.insert(0, &range);
        Cell::titled(text, why.join("; "))
    }

    fn notes(&self) -> Vec<String> {
        [(self.failed, FAILED), (self.noisy, NOISY)]
            .into_iter()
            .filter(|(used, _)| *used)
            .map(|(_, (mark, meaning))| format!("{mark} {meaning}"))
            .collect()
    }
}

/// The caption: GPU, date, versions, and how everything was timed.
pub fn peers_caption(report: &Report) -> String {
    let mut parts = vec![
        report.gpu.clone(),
        figures::date(&report.measured_at).to_string(),
    ];
    let versions = [
        ("driver", "driver"),
        ("cuda_runtime", "CUDA runtime"),
        ("cub_version", "CUB"),
        ("torch", "torch"),
        ("cupy", "cupy"),
    ];
    for (key, name) in versions {
        if let Some(v) = report.versions.get(key) {
            let v = if key == "cub_version" {
                figures::cub_version(v)
            } else {
                v.clone()
            };
            parts.push(format!("{name} {v}"));
        }
    }
    parts.push(match report.one_session {
        Some(true) => "all timed with the book's cold method in one session".into(),
        Some(false) => {
            "all timed with the book's cold method, ours and the peers in two sessions (their ratios compare two runs, perhaps two hosts)".into()
        }
        None => "all timed with the book's cold method (not known to be in one session)".into(),
    });
    parts.retain(|p| !p.is_empty());
    parts.join(" · ")
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A comparison as `cuda-runner peers` writes it: ours missing at the
    /// smallest size, a noisy torch timing and a failed cupy one.
    pub(crate) fn peers_report() -> Report {
        let timing = |us: f64| {
            serde_json::json!({"median_us": us, "min_us": us * 0.98, "max_us": us * 1.1,
                "samples": 50, "rel_spread": 0.02, "noisy": false, "pass": true})
        };
        let mut noisy = timing(17.38);
        noisy["noisy"] = true.into();
        let mut failed = timing(9.25);
        failed["pass"] = false.into();
        let report = serde_json::from_value(serde_json::json!({
            "schema": 1, "problem": "sum_f32", "ours_example": "reductions/fast_reduce",
            "ours_key": "k", "gpu": "NVIDIA H200", "peak_gbs": 4800.0,
            "ceilings": {"read_gbs": 4328.2, "copy_gbs": 3936.5, "launch_floor_us": 2.784,
                "buffer_bytes": 1073741824u64},
            "versions": {"cub_version": "300001", "cuda_runtime": "13.0", "cupy": "14.2.0",
                "driver": "580.159.04", "nvcc": "13.0", "torch": "2.11.0+cu130"},
            "measured_at": "2026-11-29T18:12:35Z",
            "rows": [
                {"n": 65536, "bytes": 262148, "ours": null,
                 "peers": {"cub": timing(6.048), "torch": noisy}},
                {"n": 268435456u64, "bytes": 1073741828u64, "ours": timing(248.64),
                 "peers": {"cub": timing(250.05), "cub_i32": timing(250.08),
                    "torch": timing(258.27), "cupy": failed}}
            ]
        }));
        let mut report: Report = report.expect("the test report matches the runner's schema");
        let config = cuda_measured_core::peers::load_config(include_str!(
            "../../../../bench/peers/peers.toml"
        ))
        .expect("the peers list parses");
        report.peer_info = config["sum_f32"].peer.clone();
        report.reference = config["sum_f32"].reference.clone();
        report
    }

    // A report written before peers carried their names shows its keys,
    // each in a colour of its own; the ratio still divides by CUB.
    #[test]
    fn old_reports_name_peers_by_their_keys() {
        let mut report = peers_report();
        report.peer_info.clear();
        report.reference.clear();
        let keys: Vec<String> = peers_of(&report).into_iter().map(|p| p.short).collect();
        assert_eq!(keys, ["cub", "cub_i32", "cupy", "torch"]);
        let table = peers_table(&report);
        assert_eq!(table.head[6].text, "cub / ours");
        assert_eq!(
            peers_heading(&report),
            "sum_f32: reductions/fast_reduce against cub, cub_i32, cupy and torch"
        );
    }

    fn texts(row: &[Cell]) -> Vec<&str> {
        row.iter().map(|c| c.text.as_str()).collect()
    }

    // A CUB win by a hair never rounds up to 1.000; the tooltip says who
    // is ahead and by how much.
    #[test]
    fn a_narrow_cub_win_shows_below_one() {
        let c = ratio_cell("CUB", 953.42, 953.50);
        assert_eq!(c.text, "0.9999");
        assert!(c.title.as_deref().unwrap().contains("CUB ahead by 0.008%"));
        assert_eq!(ratio_cell("CUB", 250.1, 248.6).text, "1.006");
        assert_eq!(ratio_cell("CUB", 100.0, 100.0).text, "1.000");
        assert!(
            ratio_cell("CUB", 100.0, 100.0)
                .title
                .unwrap()
                .contains("ours ahead by 0.000%")
        );
    }

    // A host-device copy's table is in bytes and holds ours to the pinned
    // host link measured with it, not to the device's read ceiling.
    #[test]
    fn host_link_copies_are_held_to_the_pinned_link() {
        let mut report = peers_report();
        report.ceilings.as_mut().unwrap().named.insert(
            "h2d_pinned".into(),
            cuda_measured_core::method::MeasuredCeiling {
                value: 5000.0,
                unit: "GB/s".into(),
                peak: None,
                sm_clock_mhz: None,
            },
        );
        let table = peers_table(&report);
        assert_eq!(table.head[0].text, "bytes");
        assert_eq!(table.head[8].text, "% of pinned host-link ceiling");
        // 4318 GB/s over the 5000 GB/s link.
        assert_eq!(table.rows[1][8].text, "86.4%");
    }

    // Each row holds every implementation's time, the ratio and our share
    // of the read ceiling; missing figures are dashes, marks have notes.
    #[test]
    fn peers_rows() {
        let table = peers_table(&peers_report());
        assert_eq!(table.head.len(), 9);
        let want: [&[&str]; 2] = [
            &["2^16", "—", "6.048", "—", "17.38 ~", "—", "—", "—", "—"],
            &[
                "2^28",
                "248.6",
                "250.1",
                "250.1",
                "258.3",
                "9.250 ✗",
                "1.006",
                "4318",
                "99.8%",
            ],
        ];
        for (row, want) in table.rows.iter().zip(want) {
            assert_eq!(texts(row), want);
        }
        assert_eq!(
            table.notes,
            [
                "✗ failed the problem's check",
                "~ noisy: the noise target was not met before the time-out"
            ]
        );
        assert_eq!(
            table.rows[0][4].title.as_deref(),
            Some(
                "17.03–19.12 µs, 50 samples, spread 2.0%; noisy: the noise target was not met before the time-out"
            )
        );
    }

    // The caption names the GPU, the day and every version, CUB's decoded,
    // and claims one session only when the report says so.
    #[test]
    fn peers_caption_and_labels() {
        let mut report = peers_report();
        assert_eq!(
            peers_caption(&report),
            "NVIDIA H200 · 2026-11-29 · driver 580.159.04 · CUDA runtime 13.0 · CUB 3.0.1 · torch 2.11.0+cu130 · cupy 14.2.0 · all timed with the book's cold method (not known to be in one session)"
        );
        report.one_session = Some(true);
        assert!(
            peers_caption(&report)
                .ends_with("all timed with the book's cold method in one session")
        );
        // Peers of another session say so.
        report.one_session = Some(false);
        assert!(peers_caption(&report).contains("ours and the peers in two sessions"));
        assert_eq!(ours_label(&report), "fast_reduce (ours)");
        assert!(
            stale_note("measured for an earlier version of r/a").starts_with(
                "Measured for an earlier version of r/a: these figures may no longer hold."
            )
        );
    }
}
