//! Turns outcomes into what replaces a runnable block in a chapter: HTML
//! panels for the `html` renderer ([`html`]), plain markdown tables for
//! every other renderer ([`markdown`]), each panel shape written once per
//! target from the same [`Panel`] input. It also holds what every
//! renderer of the book shares, below the modules that render a value
//! (`crate::values`, `crate::status_page`, each kind of
//! `crate::artifacts`), which import it and which it never imports: tables
//! of cells ([`reports`]), the HTML and markdown layout of a table and of a
//! directive's error, and the parts charts are drawn with ([`chart`]).

pub mod chart;
pub mod html;
pub mod markdown;
pub mod reports;

use crate::config::RunLinks;
use crate::markup::code_fence;
use crate::outcome::Outcome;
use cuda_measured_core::example::Example;
use cuda_measured_core::record::{Record, Status};

/// What the chapter is being prepared for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// mdBook's HTML renderer: panels are HTML.
    Html,
    /// Any other renderer: panels are markdown.
    Markdown,
}

impl Target {
    /// The target for an mdBook renderer name.
    pub fn for_renderer(renderer: &str) -> Self {
        if renderer == "html" {
            Target::Html
        } else {
            Target::Markdown
        }
    }
}

/// Everything a results panel shows.
#[derive(Debug, Clone, Copy)]
pub struct Panel<'a> {
    /// Example id as shown.
    pub id: &'a str,
    /// The panel's `id` attribute, the target of the status page's links
    /// ([`crate::status_page::panel_anchors`]); HTML only.
    pub anchor: Option<&'a str>,
    /// What is known about its result.
    pub outcome: &'a Outcome,
    /// The block as the author wrote it (shown when it cannot be run).
    pub raw: &'a str,
}

/// A block the reader may edit and run in the HTML page (theme/run.js):
/// what the Run button sends the service for it.
#[derive(Debug, Clone, Copy)]
pub struct Runnable<'a> {
    /// The example's id, sent as `example`; unused for a stage's starter.
    pub example: &'a str,
    /// The exercise stage whose starter this is (`reduction/stage2`), sent
    /// as `stage` so the service judges the stage's gates.
    pub stage: Option<&'a str>,
    /// Where Run posts, and where a reader learns to start a service.
    pub links: &'a RunLinks,
}

/// The text replacing a runnable block: the code to show (when the example
/// resolved), then, unless the example's panel is under an earlier block,
/// a blank line, the panel, and a blank line that closes it. In HTML, a
/// `runnable` block's code and panel sit in the editor's wrapper
/// ([`html::run_open`]), which keeps the code as the page shows it, so
/// that without JavaScript the page reads as before.
pub fn block(
    target: Target,
    example: Option<&Example>,
    panel: Option<&Panel<'_>>,
    runnable: Option<&Runnable<'_>>,
) -> String {
    let mut parts = Vec::new();
    let wrapped = target == Target::Html && example.is_some();
    let runnable = runnable.filter(|_| wrapped);
    if let Some(runnable) = runnable {
        parts.push(html::run_open(runnable));
    }
    if let Some(example) = example {
        parts.push(code_fence("cuda", &example.display));
    }
    if let Some(panel) = panel {
        let panel = match target {
            Target::Html => html::panel(panel),
            Target::Markdown => markdown::panel(panel),
        };
        parts.push(panel.trim_end().to_string());
    }
    if runnable.is_some() {
        parts.push(html::RUN_CLOSE.to_string());
    }
    if parts.is_empty() {
        return String::new();
    }
    let mut out = parts.join("\n\n");
    // A bare code fence ends without a newline, as it always has.
    if panel.is_some() || runnable.is_some() {
        out.push('\n');
    }
    out
}

/// The text replacing a directive that cannot be read.
pub fn directive_error(target: Target, message: &str) -> String {
    match target {
        Target::Html => html::directive_error(message),
        Target::Markdown => markdown::directive_error(message),
    }
}

/// The verdict words of a record: `pass`, `wrong · expected failure`,
/// `pass · but declared expect = "wrong"`.
pub fn verdict(record: &Record) -> String {
    let words = crate::outcome::status_words(record.status);
    match (record.status == Status::Pass, record.as_expected()) {
        (true, true) => words,
        (false, true) => format!("{words} · expected failure"),
        (true, false) => format!(
            "{words} · but declared expect = \"{}\"",
            crate::outcome::expectation_word(record.expect)
        ),
        (false, false) => words,
    }
}

/// The GPU and toolchain facts of a record, for panel headers.
pub fn facts(record: &Record) -> String {
    let date = crate::figures::date(&record.measured_at);
    match &record.gpu {
        Some(g) => format!(
            "{} · CC {} · {} SMs · NVRTC {} · measured {date}",
            g.name, g.compute_capability, g.sm_count, g.nvrtc
        ),
        None => format!("no GPU reached · {date}"),
    }
}

/// The lines of a panel's details: the launch plan and conditions of each
/// size, the build, the ceilings measured alongside, and the edge checks.
pub fn detail_lines(r: &Record) -> Vec<String> {
    use crate::figures;
    let mut lines = Vec::new();
    for s in &r.sizes {
        let mut line = format!(
            "{}{}: {}",
            value_label(s.sweep.as_ref()),
            shape_label(s.size(), s.rows),
            s.launches.join("; ")
        );
        if let Some(hot) = s.hot_median_us {
            line.push_str(&format!(
                "; hot (L2 warm, back to back) {}",
                figures::time_us(hot)
            ));
        }
        for (name, rate) in &s.metrics {
            line.push_str(&format!("; {}", figures::rate(name, *rate)));
        }
        if s.sm_clock_mhz > 0.0 {
            line.push_str(&format!("; SM clock {:.0} MHz", s.sm_clock_mhz));
        }
        if s.throttled_dropped > 0 {
            line.push_str(&format!(
                "; {} throttled sample(s) dropped",
                s.throttled_dropped
            ));
        }
        lines.push(line);
    }
    lines.push(format!(
        "Problem {}; NVRTC options {}",
        r.problem,
        r.compile_options.join(" ")
    ));
    if !r.registers.is_empty() {
        let regs: Vec<String> = r
            .registers
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        lines.push(format!("Registers per thread: {}", regs.join(", ")));
    }
    if r.processes > 1 {
        lines.push(format!(
            "Samples pooled from {} processes, each with a share of the sampling budget",
            r.processes
        ));
    }
    if let Some(c) = &r.ceilings {
        let over = if r.processes > 1 {
            " (medians over the processes)"
        } else {
            ""
        };
        lines.push(format!(
            "Measured alongside: read ceiling {}, copy ceiling {}, launch floor {}{over}",
            figures::gbs(c.read_gbs),
            figures::gbs(c.copy_gbs),
            figures::time_us(c.launch_floor_us)
        ));
    }
    for e in &r.edge_checks {
        // A zero tolerance is the exact check on whole-number inputs.
        let held_to = if e.tolerance == 0.0 {
            "must be exact".to_string()
        } else {
            format!("tolerance {}", figures::error(e.tolerance))
        };
        lines.push(format!(
            "Edge check {}{}: error {} ({held_to}) {}",
            value_label(e.sweep.as_ref()),
            shape_label(e.size(), e.rows),
            figures::error(e.error),
            if e.pass { "✓" } else { "✗" }
        ));
    }
    lines
}

/// The panel's note on each size whose sampling the measuring budget
/// ended: `At N = 2^22: 8 samples (the 30 s budget ended sampling: each
/// sample takes 2.000 s); no hot figure.`
pub fn budget_notes(r: &Record) -> Vec<String> {
    r.sizes
        .iter()
        .filter_map(|s| {
            let b = s.budget?;
            Some(format!(
                "At {}{}: {} samples (the {} s budget ended sampling: each sample takes {}); no hot figure.",
                value_label(s.sweep.as_ref()),
                shape_label(s.size(), s.rows),
                s.samples,
                b.budget_s,
                crate::figures::time_us(b.sample_s * 1e6)
            ))
        })
        .collect()
}

/// The note on a quick record's panel.
pub const QUICK_NOTE: &str = "Quick measurement for the preview: one process with one process's share of the sampling budget, kept out of results/. Run scripts/book on a GPU machine to measure it fully before committing.";

/// `N = 2^20`, for a row-wise run `16384 rows of N = 2^12`, or for a
/// size of several dimensions `rows x cols 8192x4096`.
pub fn shape_label(size: cuda_measured_core::dims::Dims, rows: Option<u64>) -> String {
    match rows {
        Some(m) => format!("{m} rows of N = {size}"),
        None => size.words(),
    }
}

/// `STRIDE = 4, ` before the size of a row of one value of a sweep;
/// nothing for an example that sweeps nothing.
pub fn value_label(value: Option<&cuda_measured_core::sweep::SweepValue>) -> String {
    value.map(|v| format!("{v}, ")).unwrap_or_default()
}

/// The first cell of a size's row: its [`size_cell`], after the value of
/// the sweep it is of (`STRIDE = 4 · 2^24`), so that each (value, size)
/// is a row of its own, labelled with its value.
pub fn row_cell(s: &cuda_measured_core::record::SizeResult) -> String {
    let size = size_cell(s.size(), s.rows);
    match &s.sweep {
        Some(v) => format!("{v} · {size}"),
        None => size,
    }
}

/// The size column's cell: `2^12`, `16384 × 2^12` for a row-wise run, or
/// the canonical text of a size of several dimensions (`8192x4096`).
pub fn size_cell(size: cuda_measured_core::dims::Dims, rows: Option<u64>) -> String {
    match rows {
        Some(m) => format!("{m} × {size}"),
        None => size.to_string(),
    }
}

/// The size column's heading: `N`, `M × N` when the runs are row-wise, or
/// the dimensions of a problem of several (`rows x cols`).
pub fn size_heading(r: &Record) -> String {
    let size = size_only_heading(r);
    match r.sizes.iter().find_map(|s| s.sweep.as_ref()) {
        Some(v) => format!("{} · {size}", v.name),
        None => size,
    }
}

/// [`size_heading`] without the swept parameter.
fn size_only_heading(r: &Record) -> String {
    if let Some(d) = r.sizes.iter().find_map(|s| s.dims) {
        cuda_measured_core::dims::Dims::describe(d.dims())
    } else if r.sizes.iter().any(|s| s.rows.is_some()) {
        "M × N".into()
    } else {
        "N".into()
    }
}

/// Which ceiling a record's `% ceiling` is of, in words: `read`, `copy`,
/// `FP32 FMA`, `pinned host-to-device` or `pinned device-to-host`.
pub fn ceiling_kind(r: &Record) -> &'static str {
    match r.sizes.iter().find_map(|s| s.ceiling.as_deref()) {
        Some("copy") => "copy",
        Some("fp32_fma") => "FP32 FMA",
        Some("h2d_pinned") => "pinned host-to-device",
        Some("d2h_pinned") => "pinned device-to-host",
        _ => "read",
    }
}

/// The columns a record's kind adds to its table, each a heading and the
/// figure it shows (`cuda_measured_core::figures::value`): TFLOP/s for a
/// FLOP problem, ns and cycles per access for a latency; none for
/// bandwidth, whose GB/s every table has.
pub fn kind_columns(r: &Record) -> &'static [(&'static str, &'static str)] {
    match r.sizes.first().map(cuda_measured_core::figures::primary) {
        Some("tflops") => &[("TFLOP/s", "tflops")],
        Some("ns_per_access") => &[
            ("ns / access", "ns_per_access"),
            ("cycles / access", "cycles_per_access"),
        ],
        _ => &[],
    }
}

/// The number of a kind column's figure in a table cell, without its unit
/// (the heading has it): `51.23`, `612.3`; `n/a` when the size lacks it.
pub fn kind_cell(s: &cuda_measured_core::record::SizeResult, figure: &str) -> String {
    match cuda_measured_core::figures::value(s, figure) {
        Some(v) => crate::figures::named(figure, v)
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_string(),
        None => "n/a".into(),
    }
}

/// Whether any size has a % of the measured ceiling (older records do not).
pub fn has_ceiling(r: &Record) -> bool {
    r.sizes.iter().any(|s| s.pct_ceiling.is_some())
}

/// ✓ for a pass, ✗ otherwise.
pub fn mark(status: Status) -> &'static str {
    if status == Status::Pass { "✓" } else { "✗" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::record;
    use cuda_measured_core::declaration::Expectation;

    // The verdict says when a failure was the point, and when a declared bug is gone.
    #[test]
    fn verdict_wording() {
        let cases = [
            (Status::Pass, Expectation::Pass, "pass"),
            (
                Status::Wrong,
                Expectation::Wrong,
                "wrong · expected failure",
            ),
            (Status::CompileError, Expectation::Pass, "compile error"),
            (
                Status::Pass,
                Expectation::Wrong,
                "pass · but declared expect = \"wrong\"",
            ),
        ];
        for (status, expect, want) in cases {
            assert_eq!(verdict(&record(status, expect)), want);
        }
        assert_eq!(
            facts(&record(Status::Pass, Expectation::Pass)),
            "NVIDIA H200 · CC 9.0 · 132 SMs · NVRTC 13.0 · measured 2026-05-01"
        );
    }

    // A size the budget ended says so on the panel, in both renderers:
    // its samples, the budget, what one sample took, and that it has no
    // hot figure; a size the stop rule ended says nothing of a budget.
    #[test]
    fn a_size_the_budget_ended_says_so() {
        let mut r = record(Status::Pass, Expectation::Pass);
        assert!(budget_notes(&r).is_empty());
        r.sizes[0].samples = 8;
        r.sizes[0].budget = Some(cuda_measured_core::method::BudgetEnd {
            budget_s: 30.0,
            sample_s: 2.0,
        });
        let want = "At N = 2^28: 8 samples (the 30 s budget ended sampling: each sample takes 2.000 s); no hot figure.";
        assert_eq!(budget_notes(&r), [want]);
        let p = Panel {
            id: "r/tree",
            anchor: None,
            raw: "",
            outcome: &Outcome::Fresh(r.clone()),
        };
        assert!(html::panel(&p).contains(want));
        assert!(markdown::panel(&p).contains(want));
    }

    // Renderer names map to targets: only html gets HTML.
    #[test]
    fn targets() {
        assert_eq!(Target::for_renderer("html"), Target::Html);
        assert_eq!(Target::for_renderer("markdown"), Target::Markdown);
        assert_eq!(Target::for_renderer("test"), Target::Markdown);
    }
}
