//! HTML panels, directive values and ladders for mdBook's HTML renderer,
//! written with `maud` (escaping by construction). Styles live in
//! theme/cuda-measured.css; class names start with `cm-`.
//!
//! The HTML sits in markdown as an HTML block, which a blank line would end:
//! text that may hold newlines is written through [`Flat`], which turns
//! them into `&#10;`, and the only literal newlines are between elements.

use super::reports::{self, Table};
use super::{Panel, chart, detail_lines, facts, has_ceiling, mark, verdict};
use crate::figures;
use crate::markup::Flat;
use crate::outcome::Outcome;
use crate::status_page::StatusPage;
use crate::values::{Ladder, Peers, Repeatability, Value};
use cuda_measured_core::record::{Record, Status};
use maud::{Markup, PreEscaped, html};

/// The results panel of one example.
pub fn panel(p: &Panel<'_>) -> String {
    let markup = match p.outcome {
        Outcome::Fresh(r) => record_panel(p, r, false, None),
        Outcome::Unstored { record, reason } => record_panel(p, record, false, Some(reason)),
        Outcome::Stale(r) => record_panel(p, r, true, None),
        Outcome::Missing => missing_panel(p),
        Outcome::Broken(message) => broken_panel(p.anchor, message, p.raw),
    };
    markup.into_string()
}

/// CSS classes of a record's panel.
fn panel_class(record: &Record, stale: bool) -> String {
    let mut class = String::from("cm-panel ");
    class.push_str(match (stale, record.status) {
        (true, _) => "cm-stale",
        (false, Status::Pass) => "cm-pass",
        (false, Status::Wrong) => "cm-wrong",
        (false, _) => "cm-fail",
    });
    if record.status != Status::Pass && record.as_expected() {
        class.push_str(" cm-expected");
    }
    if record.status == Status::Pass && !record.as_expected() {
        class.push_str(" cm-unexpected");
    }
    class
}

/// A record's panel; `unstored` is why a record measured in this build
/// could not be written to the store.
fn record_panel(p: &Panel<'_>, r: &Record, stale: bool, unstored: Option<&str>) -> Markup {
    let failed = r.status != Status::Pass;
    let id = p.id;
    html! {
        div class=(panel_class(r, stale)) id=[p.anchor] data-example=(id) data-status=(r.status.word()) {
            "\n"
            div.cm-head {
                span.cm-mark { (mark(r.status)) } " "
                code.cm-id { (Flat(id)) } " "
                span.cm-verdict { (Flat(&verdict(r))) } " "
                span.cm-facts { (Flat(&facts(r))) }
            }
            "\n"
            @if stale {
                p.cm-note {
                    "Measured for an earlier version of this code: these figures may no longer hold. Build on a GPU machine to measure it again."
                }
                "\n"
            }
            @if r.quick {
                p.cm-note.cm-quick { (super::QUICK_NOTE) }
                "\n"
            }
            @if let Some(reason) = unstored {
                p.cm-unstored {
                    strong { "Measured in this build but NOT stored" }
                    " (" (Flat(reason)) "): this page shows this build's figures, and the next build measures the example again."
                }
                "\n"
            }
            @if failed && !r.message.is_empty() {
                p.cm-message { (Flat(&r.message)) }
                "\n"
            }
            @if !r.sizes.is_empty() {
                (sizes_table(r))
                "\n"
            }
            (plan_details(r))
            @if !r.log.is_empty() {
                "\n"
                // Open for a failure; a passing kernel's output (its printf)
                // stays folded.
                details.cm-log open[failed] {
                    summary { "Log" }
                    pre { (Flat(&r.log)) }
                }
            }
            "\n"
        }
    }
}

fn sizes_table(r: &Record) -> Markup {
    let ceiling = has_ceiling(r);
    let kinds = super::kind_columns(r);
    let ceiling_title = format!(
        "% of the {} ceiling measured in the same run",
        super::ceiling_kind(r)
    );
    html! {
        div.cm-table {
            table.cm-sizes {
                thead {
                    tr {
                        th { (super::size_heading(r)) } th { "median" } th { "min–max" } th { "samples" } th { "spread" }
                        @for (heading, _) in kinds { th { (heading) } }
                        th { "GB/s" } th { "% peak" }
                        @if ceiling { th title=(ceiling_title) { "% ceiling" } }
                        th { "error (tolerance)" } th { "check" } th { "labels" }
                    }
                }
                "\n"
                tbody {
                    @for s in &r.sizes {
                        tr class=(if s.pass { "cm-ok" } else { "cm-bad" }) {
                            td { (super::row_cell(s)) }
                            td { (figures::time_us(s.median_us)) }
                            td { (figures::time_range_us(s.min_us, s.max_us)) }
                            td { (s.samples) }
                            td { (figures::fraction_as_percent(s.rel_spread)) }
                            @for (_, figure) in kinds { td { (super::kind_cell(s, figure)) } }
                            td { (figures::gbs_number(s.gbs)) }
                            td { (figures::percent(s.pct_peak)) }
                            @if ceiling { td { (s.pct_ceiling.map_or_else(|| "n/a".into(), figures::percent)) } }
                            td { (figures::error(s.error)) " (" (figures::error(s.tolerance)) ")" }
                            td.cm-check { (if s.pass { "✓" } else { "✗" }) }
                            td { (Flat(&s.labels.join(", "))) }
                        }
                        "\n"
                    }
                }
            }
        }
    }
}

fn plan_details(r: &Record) -> Markup {
    html! {
        details.cm-plan {
            summary { "Launch plan, build and edge checks" }
            ul {
                @for line in detail_lines(r) {
                    li { (Flat(&line)) }
                }
            }
        }
    }
}

fn missing_panel(p: &Panel<'_>) -> Markup {
    let id = p.id;
    html! {
        div.cm-panel.cm-missing id=[p.anchor] data-example=(id) {
            "\n"
            div.cm-head {
                span.cm-mark { "…" } " "
                code.cm-id { (Flat(id)) } " "
                span.cm-verdict { "not measured yet" }
            }
            "\n"
            p.cm-note { "No result is stored for this example yet. Build the book on a machine with a GPU to measure it." }
            "\n"
        }
    }
}

fn broken_panel(anchor: Option<&str>, message: &str, raw: &str) -> Markup {
    html! {
        div.cm-panel.cm-error id=[anchor] {
            "\n"
            div.cm-head {
                span.cm-mark { "✗" } " "
                span.cm-verdict { "this example cannot be run" }
            }
            "\n"
            p.cm-message { (Flat(message)) }
            "\n"
            details.cm-source open {
                summary { "The block as written" }
                pre { (Flat(raw)) }
            }
            "\n"
        }
    }
}

/// A directive's value. Ladders, comparisons and reports standing alone on
/// their line become a block; inline, they are kept on one line.
pub fn value(value: &Value, alone: bool) -> String {
    let block = match value {
        Value::Figure { text, title } => {
            return html! { span.cm-value title=(title) { (text) } }.into_string();
        }
        Value::Unmeasured(reason) => {
            return html! { span.cm-unmeasured title=(reason) { "not measured" } }.into_string();
        }
        Value::Mistake(message) => return directive_error(message),
        Value::Sass(view) => super::sass::html(view),
        Value::Sanitizer(view) => crate::sanitizer_view::render::html(view),
        Value::Host(view) => super::host::html(view),
        Value::Allreduce(view) => super::allreduce::html(view),
        Value::Ladder(ladder) => ladder_chart(ladder),
        Value::Peers(peers) => peers_panel(peers),
        Value::Repeatability(report) => repeatability_panel(report),
        Value::Status(page) => status_panel(page),
    };
    if alone {
        format!("{}\n", block.into_string())
    } else {
        block.into_string().replace('\n', "")
    }
}

/// A `{{#peers}}` comparison: chart, table and caption. A comparison that
/// no longer describes the book's kernel is greyed (the theme greys
/// `.cm-sizes` in stale panels, chart and table alike) and says why. The
/// chart sits in a `.cm-table`, which scrolls sideways on narrow pages.
fn peers_panel(p: &Peers) -> Markup {
    let r = &p.report;
    let class = if p.stale.is_some() {
        "cm-panel cm-peers cm-stale"
    } else {
        "cm-panel cm-peers cm-pass"
    };
    // Drawing only fails on a report without a single timing.
    let svg = chart::peers_svg(r).ok();
    html! {
        div class=(class) data-problem=(r.problem) data-example=(r.ours_example) {
            "\n"
            div.cm-head {
                span.cm-verdict { (Flat(&reports::peers_heading(r))) }
            }
            "\n"
            @if let Some(reason) = &p.stale {
                p.cm-note { (Flat(&reports::stale_note(reason))) }
                "\n"
            }
            @if let Some(svg) = svg {
                // cm-table: scrolls sideways on narrow pages.
                div.cm-figure.cm-table.cm-sizes { (PreEscaped(svg)) }
                "\n"
            }
            (report_table(&reports::peers_table(r)))
            "\n"
            p.cm-caption { (Flat(&reports::peers_caption(r))) }
            "\n"
        }
    }
}

/// A `{{#repeatability}}` report: the verdict, then every row. A report
/// that no longer describes the book is greyed like a stale panel, says
/// why, and carries the reason as its tooltip.
fn repeatability_panel(p: &Repeatability) -> Markup {
    let r = &p.report;
    let class = match (&p.stale, r.goal_met) {
        (Some(_), _) => "cm-panel cm-repeatability cm-stale",
        (None, true) => "cm-panel cm-repeatability cm-pass",
        (None, false) => "cm-panel cm-repeatability cm-wrong",
    };
    let title = p.stale.as_deref().map(reports::stale_note);
    html! {
        div class=(class) title=[title.as_deref()] {
            "\n"
            div.cm-head {
                span.cm-mark { (if r.goal_met { "✓" } else { "✗" }) } " "
                span.cm-verdict { "The book measured twice, back to back" } " "
                span.cm-facts { (Flat(&reports::repeatability_facts(r))) }
            }
            "\n"
            @if let Some(note) = &title {
                p.cm-note { (Flat(note)) }
                "\n"
            }
            p.cm-note { (Flat(&reports::repeatability_summary(r))) "." }
            "\n"
            (report_table(&reports::repeatability_table(r)))
            "\n"
        }
    }
}

/// A `{{#status}}` page: the counts, then one row per example, its id
/// linked to its panel and its state cell classed for the theme; then the
/// stored evidence, when the book uses any.
fn status_panel(page: &StatusPage) -> Markup {
    let table = reports::status_table(page);
    html! {
        div.cm-panel.cm-status {
            "\n"
            p.cm-note { (Flat(&page.summary())) }
            "\n"
            div.cm-table {
                table.cm-sizes.cm-status-table {
                    thead {
                        tr {
                            @for c in &table.head {
                                th title=[c.title.as_deref()] { (Flat(&c.text)) }
                            }
                        }
                    }
                    "\n"
                    tbody {
                        @for (row, cells) in page.rows.iter().zip(&table.rows) {
                            tr class={ "cm-state-" (row.state.slug()) } {
                                @for (i, c) in cells.iter().enumerate() {
                                    td title=[c.title.as_deref()] {
                                        @match (i, &row.href) {
                                            (0, Some(href)) => a href=(href) { code { (Flat(&c.text)) } },
                                            (0, None) => code { (Flat(&c.text)) },
                                            _ => (Flat(&c.text)),
                                        }
                                    }
                                }
                            }
                            "\n"
                        }
                    }
                }
            }
            "\n"
            @if !page.evidence.rows.is_empty() {
                (evidence_panel(&page.evidence))
            }
        }
    }
}

/// The stored evidence of a `{{#status}}` page: its counts, then one row
/// per file, grouped by kind, the file linked to the section using it and
/// the state cell classed for the theme; then what makes the rest.
fn evidence_panel(evidence: &crate::evidence::Evidence) -> Markup {
    let table = reports::evidence_table(evidence);
    html! {
        p.cm-note { (Flat(&evidence.summary())) }
        "\n"
        div.cm-table {
            table.cm-sizes.cm-status-table.cm-evidence-table {
                thead {
                    tr {
                        @for c in &table.head {
                            th title=[c.title.as_deref()] { (Flat(&c.text)) }
                        }
                    }
                }
                "\n"
                tbody {
                    @for (row, cells) in evidence.rows.iter().zip(&table.rows) {
                        tr class={ "cm-evidence-" (row.state.word()) } {
                            @for (i, c) in cells.iter().enumerate() {
                                td title=[c.title.as_deref()] {
                                    @match (i, &row.href) {
                                        (1, Some(href)) => a href=(href) { code { (Flat(&c.text)) } },
                                        (1, None) | (6, _) if c.text != "—" => code { (Flat(&c.text)) },
                                        _ => (Flat(&c.text)),
                                    }
                                }
                            }
                        }
                        "\n"
                    }
                }
            }
        }
        "\n"
        @for note in &table.notes {
            p.cm-note { (Flat(note)) }
            "\n"
        }
    }
}

/// A table of a stored report, with the notes of the marks it uses.
pub(super) fn report_table(t: &Table) -> Markup {
    html! {
        div.cm-table {
            table.cm-sizes {
                thead {
                    tr {
                        @for c in &t.head {
                            th title=[c.title.as_deref()] { (Flat(&c.text)) }
                        }
                    }
                }
                "\n"
                tbody {
                    @for row in &t.rows {
                        tr {
                            @for c in row {
                                td title=[c.title.as_deref()] { (Flat(&c.text)) }
                            }
                        }
                        "\n"
                    }
                }
            }
        }
        @if !t.notes.is_empty() {
            "\n"
            p.cm-note { (Flat(&t.notes.join(" · "))) }
        }
    }
}

/// A directive that cannot be read, shown where it was written.
pub fn directive_error(message: &str) -> String {
    html! { span.cm-directive-error { (Flat(message)) } }.into_string()
}

fn ladder_chart(ladder: &Ladder) -> Markup {
    html! {
        div.cm-ladder data-size=(ladder.size) {
            "\n"
            div.cm-ladder-title {
                (ladder.what()) " at " (ladder.size.words())
                @if let Some((gpu, _)) = &ladder.gpu {
                    " on " (gpu)
                    @if let Some(of) = ladder.bars_of() {
                        ", bars in % of " (of)
                    }
                }
            }
            "\n"
            @for rung in &ladder.rungs {
                @match &rung.figure {
                    Ok((gbs, pct, status)) => {
                        div.cm-rung {
                            span.cm-rung-label { code { (rung.id) } }
                            span.cm-rung-bar {
                                span class={ "cm-rung-fill cm-" (status.word()) }
                                    style={ "width: " (format!("{:.1}", pct.clamp(0.0, 100.0))) "%" } {}
                            }
                            span.cm-rung-value {
                                (figures::named(&ladder.figure, *gbs))
                                @if ladder.figure != "ns_per_access" { " · " (figures::percent(*pct)) }
                            }
                        }
                    }
                    Err(reason) => {
                        div.cm-rung.cm-rung-missing title=(reason) {
                            span.cm-rung-label { code { (rung.id) } }
                            span.cm-rung-bar {}
                            span.cm-rung-value { "not measured" }
                        }
                    }
                }
                "\n"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::record;
    use cuda_measured_core::declaration::Expectation;

    fn no_blank_lines(html: &str) {
        assert!(
            !html.lines().any(|l| l.trim().is_empty()),
            "blank line in:\n{html}"
        );
    }

    fn render(outcome: &Outcome) -> String {
        panel(&Panel {
            id: "r/tree",
            anchor: Some("example-r-tree"),
            outcome,
            raw: "```cuda run file=x.cu\n\n```",
        })
    }

    // Every panel kind carries its class, and none has a blank line that
    // would end the HTML block early.
    #[test]
    fn panel_classes_and_no_blank_lines() {
        let cases = [
            (
                Outcome::Fresh(record(Status::Pass, Expectation::Pass)),
                "cm-panel cm-pass\"",
            ),
            (
                Outcome::Fresh(record(Status::Wrong, Expectation::Wrong)),
                "cm-panel cm-wrong cm-expected\"",
            ),
            (
                Outcome::Fresh(record(Status::Fault, Expectation::Pass)),
                "cm-panel cm-fail\"",
            ),
            (
                Outcome::Fresh(record(Status::Pass, Expectation::Wrong)),
                "cm-panel cm-pass cm-unexpected\"",
            ),
            (
                Outcome::Stale(record(Status::Pass, Expectation::Pass)),
                "cm-panel cm-stale\"",
            ),
            (Outcome::Missing, "cm-panel cm-missing\""),
            (
                Outcome::Broken("src/a.md:3: bad\nfix it".into()),
                "cm-panel cm-error\"",
            ),
        ];
        for (outcome, class) in cases {
            let html = render(&outcome);
            assert!(html.contains(class), "{class} not in {html}");
            no_blank_lines(&html);
        }
    }

    // A failure shows its message and its log, escaped, in an open
    // <details>; a pass shows a log it has (a kernel's printf) folded, and
    // no log block when its log is empty.
    #[test]
    fn failure_shows_message_and_escaped_log() {
        let html = render(&Outcome::Fresh(record(Status::Wrong, Expectation::Pass)));
        assert!(
            html.contains("<p class=\"cm-message\">sum off by 12.5</p>"),
            "{html}"
        );
        assert!(
            html.contains("<details class=\"cm-log\" open><summary>Log</summary><pre>line one&#10;&#10;line &lt;three&gt;</pre></details>"),
            "{html}"
        );
        let pass = render(&Outcome::Fresh(record(Status::Pass, Expectation::Pass)));
        assert!(!pass.contains("cm-log"), "{pass}");
        let mut printed = record(Status::Pass, Expectation::Pass);
        printed.log = "block 0: <sum> = 1\nblock 1: sum = 2".into();
        let pass = render(&Outcome::Fresh(printed));
        assert!(
            pass.contains("<details class=\"cm-log\"><summary>Log</summary><pre>block 0: &lt;sum&gt; = 1&#10;block 1: sum = 2</pre></details>"),
            "{pass}"
        );
        assert!(!pass.contains("cm-message"), "{pass}");
        no_blank_lines(&pass);
    }

    // A record measured but not stored shows the record and a warning
    // saying why and what happens next.
    #[test]
    fn unstored_record_warns() {
        let html = render(&Outcome::Unstored {
            record: record(Status::Pass, Expectation::Pass),
            reason: "results/r/tree.json: Is a directory (os error 21)".into(),
        });
        assert!(html.contains("cm-panel cm-pass\""), "{html}");
        assert!(
            html.contains("<p class=\"cm-unstored\"><strong>Measured in this build but NOT stored</strong> (results/r/tree.json: Is a directory (os error 21)): this page shows this build's figures, and the next build measures the example again.</p>"),
            "{html}"
        );
        assert!(html.contains("<td>251.2 µs</td>"), "{html}");
        no_blank_lines(&html);
        assert!(
            !render(&Outcome::Fresh(record(Status::Pass, Expectation::Pass)))
                .contains("cm-unstored")
        );
    }

    // The size table carries the formatted figures of each size.
    #[test]
    fn size_rows() {
        let html = render(&Outcome::Fresh(record(Status::Pass, Expectation::Pass)));
        for cell in [
            "<td>2^28</td>",
            "<td>251.2 µs</td>",
            "<td>4275</td>",
            "<td>89.1%</td>",
            "3.1e-08 (1.0e-05)",
            "tree: 528 x 512",
        ] {
            assert!(html.contains(cell), "{cell} not in {html}");
        }
        let stale = render(&Outcome::Stale(record(Status::Pass, Expectation::Pass)));
        assert!(stale.contains("earlier version of this code"));
        // The status page links to each panel by its anchor.
        assert!(
            html.starts_with(
                "<div class=\"cm-panel cm-pass\" id=\"example-r-tree\" data-example=\"r/tree\""
            ),
            "{html}"
        );
    }

    // A ladder's bars follow the data; inline ladders stay on one line.
    #[test]
    fn ladder_widths_follow_data() {
        let ladder = Value::Ladder(Box::new(Ladder {
            size: cuda_measured_core::dims::Dims::n(1 << 28),
            gpu: Some(("NVIDIA H200".into(), 4800.0)),
            figure: "gbs".into(),
            rungs: vec![
                crate::values::Rung {
                    id: "a".into(),
                    figure: Ok((960.0, 20.0, Status::Pass)),
                },
                crate::values::Rung {
                    id: "b".into(),
                    figure: Err("`b` is not measured yet".into()),
                },
                crate::values::Rung {
                    id: "c".into(),
                    figure: Ok((5000.0, 104.2, Status::Wrong)),
                },
            ],
        }));
        let block = value(&ladder, true);
        assert!(block.contains("style=\"width: 20.0%\""), "{block}");
        assert!(block.contains("style=\"width: 100.0%\""), "{block}");
        assert!(block.contains("cm-rung-fill cm-wrong"), "{block}");
        assert!(
            block.contains("title=\"`b` is not measured yet\""),
            "{block}"
        );
        no_blank_lines(&block);
        assert!(!value(&ladder, false).contains('\n'));
    }

    // The status page is one block without blank lines: the counts, then
    // a row per example classed by its state, its id linked to its panel
    // where the link is known, a shortened message whole in the tooltip.
    #[test]
    fn status_block() {
        use crate::outcome::State;
        use crate::status_page::{StatusPage, StatusRow};
        let row = |state, id: &str, href: Option<&str>| StatusRow {
            state,
            id: id.into(),
            place: "src/ch.md:3".into(),
            chapter: 0,
            anchor: None,
            href: href.map(str::to_string),
            gpu: None,
            date: None,
            figure: "wrong: at N = 1 …".into(),
            detail: Some("wrong: at N = 1 expected exactly 4, got <NaN>".into()),
        };
        let page = StatusPage {
            rows: vec![
                row(State::Failed, "r/a", Some("ch.html#example-r-a")),
                row(State::NotMeasured, "?", None),
            ],
            evidence: Default::default(),
        };
        let block = value(&Value::Status(Box::new(page)), true);
        no_blank_lines(&block);
        assert!(
            block.starts_with("<div class=\"cm-panel cm-status\">\n<p class=\"cm-note\">2 examples: 1 failed, 1 not measured</p>"),
            "{block}"
        );
        assert!(
            block.contains("<tr class=\"cm-state-failed\"><td><a href=\"ch.html#example-r-a\"><code>r/a</code></a></td><td>failed</td>"),
            "{block}"
        );
        assert!(
            block.contains("<tr class=\"cm-state-not-measured\"><td><code>?</code></td>"),
            "{block}"
        );
        assert!(
            block.contains("<td title=\"wrong: at N = 1 expected exactly 4, got &lt;NaN&gt;\">wrong: at N = 1 …</td>"),
            "{block}"
        );
    }

    // Comparisons and reports are blocks without blank lines; a stale
    // comparison or report is greyed and says why (the report in its
    // tooltip too); inline, they stay on one line.
    #[test]
    fn peers_and_repeatability_blocks() {
        let peers = |stale: Option<&str>| {
            Value::Peers(Box::new(Peers {
                report: crate::render::reports::tests::peers_report(),
                file: "results/peers/sum_f32.json".into(),
                stale: stale.map(str::to_string),
            }))
        };
        let current = value(&peers(None), true);
        assert!(
            current
                .starts_with("<div class=\"cm-panel cm-peers cm-pass\" data-problem=\"sum_f32\""),
            "{current}"
        );
        assert!(
            current.contains("<div class=\"cm-figure cm-table cm-sizes\"><svg class=\"cm-chart\"")
        );
        assert!(current.contains("<p class=\"cm-caption\">NVIDIA H200 · 2026-11-29 · "));
        no_blank_lines(&current);
        let stale = value(&peers(Some("measured for an earlier version of r/a")), true);
        assert!(stale.contains("cm-panel cm-peers cm-stale"), "{stale}");
        assert!(stale.contains("<p class=\"cm-note\">Measured for an earlier version of r/a: "));
        assert!(!value(&peers(None), false).contains('\n'));
        let repeat = |stale: Option<&str>| {
            Value::Repeatability(Box::new(Repeatability {
                report: serde_json::from_value(serde_json::json!({
                    "gpu": "NVIDIA H200", "measured_at": "2026-11-29T17:00:00Z",
                    "method_version": cuda_measured_core::METHOD_VERSION, "keys": {"r/a": "k"},
                    "rows": [{"example": "r/a", "n": 1048576, "first_us": 5.9, "second_us": 6.3, "diff_pct": 6.78}],
                    "max_abs_diff_pct_over_floor": 0.0, "goal_met": true
                }))
                .unwrap(),
                file: "results/repeatability.json".into(),
                stale: stale.map(str::to_string),
            }))
        };
        let current = value(&repeat(None), true);
        assert!(
            current.starts_with("<div class=\"cm-panel cm-repeatability cm-pass\">"),
            "{current}"
        );
        assert!(
            current.contains("(goal: within 2%) — met.</p>"),
            "{current}"
        );
        no_blank_lines(&current);
        let stale = value(
            &repeat(Some("the code of r/a changed since it was measured")),
            true,
        );
        let note = "The code of r/a changed since it was measured: these figures may no longer hold. Run bench/gpu-session.sh on a GPU machine to measure them again.";
        assert!(
            stale.starts_with(&format!(
                "<div class=\"cm-panel cm-repeatability cm-stale\" title=\"{note}\">"
            )),
            "{stale}"
        );
        assert!(
            stale.contains(&format!("<p class=\"cm-note\">{note}</p>")),
            "{stale}"
        );
        no_blank_lines(&stale);
    }
}
