//! An `{{#allreduce}}` report ([`AllreduceView`]) as a reader sees it: a
//! head with the verdict of every check and the facts (GPUs, link, NCCL,
//! day, how it was timed, multicast off), the chart
//! ([`super::chart`]), a table of every message size (each
//! implementation's time, algbw and busbw, and the fastest) and a caption
//! with the software and the method. A report not made yet is a short
//! panel with the command that makes it; a stale one is greyed and says
//! why. As HTML (no blank line inside) or, for other renderers, markdown.

use super::{AllreduceView, Stored, gpus_of, link_summary, reallreduce, row_of};
use crate::figures;
use crate::markup::{Flat, code_spans};
use crate::render::html::report_table;
use crate::render::reports::{Cell, Table};
use cuda_measured_core::allreduce::bandwidth::bus_factor;
use cuda_measured_core::allreduce::report::Report;
use cuda_measured_core::allreduce::sizes::format_bytes;
use maud::{Markup, PreEscaped, html};

/// Mark of a size whose check failed (so it was not timed).
const FAILED: (&str, &str) = ("✗", "the check of every rank's output failed: not timed");
/// Mark of a timing that missed the noise target before its time-out.
const NOISY: (&str, &str) = (
    "~",
    "noisy: the noise target was not met before the time-out",
);

/// The implementations of `report` in the order the sweep ran them.
pub fn implementations(report: &Report) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for row in &report.rows {
        if !names.contains(&row.implementation.as_str()) {
            names.push(&row.implementation);
        }
    }
    names
}

/// Every message size of `report`, smallest first.
pub fn sizes(report: &Report) -> Vec<u64> {
    let mut sizes: Vec<u64> = report.rows.iter().map(|r| r.bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// An implementation as the legend names it: `NCCL in place`,
/// `one-shot (ours)`.
pub fn label(implementation: &str) -> String {
    match implementation {
        "nccl" => "NCCL".into(),
        "nccl-inplace" => "NCCL in place".into(),
        "one-shot" | "two-shot" => format!("{implementation} (ours)"),
        other => other.into(),
    }
}

/// Whether every row's check passed and nothing failed.
fn all_passed(report: &Report) -> bool {
    report.aborted.is_none()
        && report
            .rows
            .iter()
            .all(|r| r.error.is_none() && r.check.as_ref().is_none_or(|c| c.pass))
}

/// `2 × NVIDIA H200 · NV18 (18 NVLinks) · NCCL 2.28.3 · measured
/// 2026-12-03 · hot timing, the slowest rank · NVLink multicast off`.
pub fn facts(report: &Report) -> String {
    let mut parts = vec![gpus_of(report)];
    parts.push(link_summary(report).unwrap_or_else(|| "link not recorded".into()));
    parts.push(match &report.software.nccl {
        Some(v) => format!("NCCL {v}"),
        None => "NCCL not run".into(),
    });
    parts.push(format!("measured {}", figures::date(&report.measured_at)));
    parts.push("hot timing, the slowest rank".into());
    let off = report
        .environment
        .get("NCCL_NVLS_ENABLE")
        .is_some_and(|v| v == "0");
    parts.push(if off {
        "NVLink multicast off".into()
    } else {
        "NVLink multicast not known to be off".into()
    });
    parts.join(" · ")
}

/// Why the chart shows time and the table no busbw with one GPU, and
/// why NCCL in place is not the fastest there.
pub fn one_gpu_note(report: &Report) -> Option<String> {
    (report.ranks == 1).then(|| {
        "With one GPU no byte crosses a link, so the bus bandwidth (algbw × 2(k−1)/k) is 0 by definition: the chart shows the time instead, and algbw is the GPU's own copy or reduction. NCCL in place has nothing to move with one GPU (its output is its input), so it is not counted as the fastest.".into()
    })
}

/// Whether `implementation` competes for the fastest: all do, but NCCL in
/// place over one GPU, which moves nothing.
fn competes(report: &Report, implementation: &str) -> bool {
    !(report.ranks == 1 && implementation == "nccl-inplace")
}

/// `Measured for ...: these figures may no longer hold; run ...`.
pub fn stale_note(reason: &str, gpus: usize) -> String {
    let mut chars = reason.chars();
    let first: String = chars
        .next()
        .map(char::to_uppercase)
        .into_iter()
        .flatten()
        .collect();
    format!(
        "{first}{}: these figures may no longer hold; {}.",
        chars.as_str(),
        reallreduce(gpus)
    )
}

/// The software and how every figure was taken, with what was not run.
pub fn caption(report: &Report) -> String {
    let s = &report.software;
    let mut parts = vec![
        format!("driver {}", s.driver),
        format!("CUDA driver API {}", s.cuda_driver_api),
        format!("NVRTC {}", s.nvrtc),
    ];
    if let Some(nccl) = &s.nccl {
        parts.push(format!("NCCL {nccl}"));
    }
    parts.push(format!("cuda-runner {}", report.runner));
    parts.push(format!(
        "each time the median over samples of the slowest rank's time per all-reduce, back to back; every output checked first against the float64 sum of every rank's input (tolerance {})",
        figures::error(report.tolerance.abs)
    ));
    parts.push("algbw = bytes / time, busbw = algbw × 2(k−1)/k (nccl-tests)".into());
    for s in &report.skipped {
        parts.push(format!("{} not run: {}", format_bytes(s.bytes), s.reason));
    }
    if let Some(why) = &report.aborted {
        parts.push(format!("the sweep stopped early: {why}"));
    }
    parts.join(" · ")
}

/// The table: per message size, each implementation's median time, algbw
/// and (over several GPUs) busbw, then the fastest.
pub fn table(report: &Report) -> Table {
    let names = implementations(report);
    let several = report.ranks > 1;
    let mut head = vec![Cell::titled("size", "the message, bytes on every GPU")];
    for name in &names {
        head.push(Cell::titled(
            format!("{name} µs"),
            format!(
                "{}: median time per all-reduce, hot, the slowest rank",
                label(name)
            ),
        ));
        head.push(Cell::titled(
            format!("{name} algbw"),
            "GB/s: bytes / median time",
        ));
        if several {
            head.push(Cell::titled(
                format!("{name} busbw"),
                format!(
                    "GB/s: algbw × 2(k−1)/k, × {} for {} GPUs",
                    bus_factor(report.ranks),
                    report.ranks
                ),
            ));
        }
    }
    head.push(Cell::titled(
        "fastest",
        "the implementation with the least median time at this size",
    ));
    let (mut failed, mut noisy) = (false, false);
    let rows = sizes(report)
        .into_iter()
        .map(|bytes| {
            let mut cells = vec![Cell::new(format_bytes(bytes))];
            let mut times: Vec<(&str, f64)> = Vec::new();
            for name in &names {
                let row = row_of(report, name, bytes);
                let figures_cells = if several { 2 } else { 1 };
                match (row, row.and_then(|r| r.timing.as_ref())) {
                    (_, Some(t)) => {
                        if competes(report, name) {
                            times.push((name, t.median_us));
                        }
                        let mut text = figures::us_number(t.median_us);
                        let mut title = format!(
                            "{}, {} samples of {} all-reduce{}, spread {}",
                            figures::time_range_us(t.min_us, t.max_us),
                            t.samples,
                            t.reps,
                            if t.reps == 1 { "" } else { "s" },
                            figures::spread(t.rel_spread)
                        );
                        if t.noisy {
                            noisy = true;
                            text.push_str(&format!(" {}", NOISY.0));
                            title.push_str(&format!("; {}", NOISY.1));
                        }
                        cells.push(Cell::titled(text, title));
                        cells.push(Cell::new(figures::gbs_number(t.algbw_gbs)));
                        if several {
                            cells.push(Cell::new(figures::gbs_number(t.busbw_gbs)));
                        }
                    }
                    (Some(r), None) => {
                        failed = true;
                        let why = r.error.as_deref().unwrap_or(FAILED.1);
                        cells.push(Cell::titled(FAILED.0, why));
                        cells.extend((0..figures_cells).map(|_| Cell::none()));
                    }
                    (None, None) => cells.extend((0..=figures_cells).map(|_| Cell::none())),
                }
            }
            cells.push(fastest(&mut times));
            cells
        })
        .collect();
    let notes = [(failed, FAILED), (noisy, NOISY)]
        .into_iter()
        .filter(|(used, _)| *used)
        .map(|(_, (mark, meaning))| format!("{mark} {meaning}"))
        .collect();
    Table { head, rows, notes }
}

/// The fastest of `times`, with the runner-up and the margin (a
/// percentage, or a ratio from twice as fast) in its tooltip.
fn fastest(times: &mut [(&str, f64)]) -> Cell {
    times.sort_by(|a, b| a.1.total_cmp(&b.1));
    match &*times {
        [] => Cell::none(),
        [(only, _)] => Cell::new(*only),
        [(first, a), (second, b), ..] => {
            let margin = if b / a >= 2.0 {
                format!("{} as fast", figures::ratio(b / a))
            } else {
                format!("ahead by {}", figures::percent(100.0 * (b / a - 1.0)))
            };
            Cell::titled(
                *first,
                format!(
                    "{first} {} against {second} {}: {margin}",
                    figures::time_us(*a),
                    figures::time_us(*b)
                ),
            )
        }
    }
}

/// The panel as an HTML block.
pub fn html(view: &AllreduceView) -> Markup {
    match &view.stored {
        Err(reason) => html! {
            div.cm-panel.cm-allreduce.cm-missing data-gpus=(view.gpus) {
                "\n"
                div.cm-head {
                    span.cm-mark { "–" } " "
                    span.cm-verdict { (view.title()) ": not measured" }
                }
                "\n"
                p.cm-note { (code_spans(&reason.detail())) "." }
                "\n"
            }
        },
        Ok(stored) => report_html(view, stored),
    }
}

fn report_html(view: &AllreduceView, s: &Stored) -> Markup {
    let r = &s.report;
    let passed = all_passed(r);
    let class = match (&s.stale, passed) {
        (Some(_), _) => "cm-panel cm-allreduce cm-stale",
        (None, true) => "cm-panel cm-allreduce cm-pass",
        (None, false) => "cm-panel cm-allreduce cm-wrong",
    };
    // Drawing only fails on a report without a single timing.
    let svg = super::chart::svg(r).ok();
    html! {
        div class=(class) data-gpus=(view.gpus) {
            "\n"
            div.cm-head {
                span.cm-mark { (if passed { "✓" } else { "✗" }) } " "
                span.cm-verdict { (view.title()) } " "
                span.cm-facts { (Flat(&facts(r))) }
            }
            "\n"
            @if let Some(reason) = &s.stale {
                p.cm-note { (code_spans(&stale_note(reason, view.gpus))) }
                "\n"
            }
            @if let Some(note) = one_gpu_note(r) {
                p.cm-note { (note) }
                "\n"
            }
            @if let Some(svg) = svg {
                // cm-table: scrolls sideways on narrow pages.
                div.cm-figure.cm-table.cm-sizes { (PreEscaped(svg)) }
                "\n"
            }
            (report_table(&table(r)))
            "\n"
            p.cm-caption { (Flat(&caption(r))) }
            "\n"
        }
    }
}

/// The report for renderers other than HTML: the head, the notes, the
/// table and the caption.
pub fn markdown(view: &AllreduceView) -> String {
    use crate::render::markdown::{cell, table as md_table};
    let s = match &view.stored {
        Err(reason) => {
            return format!(
                "**{}:** not measured. *{}.*\n",
                view.title(),
                cell(&reason.detail())
            );
        }
        Ok(s) => s,
    };
    let r = &s.report;
    let mark = if all_passed(r) { "✓" } else { "✗" };
    let mut out = format!("**{mark} {}** · {}\n\n", view.title(), cell(&facts(r)));
    if let Some(reason) = &s.stale {
        out.push_str(&format!("*{}*\n\n", cell(&stale_note(reason, view.gpus))));
    }
    if let Some(note) = one_gpu_note(r) {
        out.push_str(&format!("*{note}*\n\n"));
    }
    out.push_str(&md_table(&table(r)));
    out.push_str(&format!("\n*{}*\n", cell(&caption(r))));
    out
}

#[cfg(test)]
pub(crate) mod tests;
