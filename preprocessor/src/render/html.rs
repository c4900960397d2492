//! HTML panels of examples and the layout of shared tables and directive
//! errors for mdBook's HTML renderer,
//! written with `maud` (escaping by construction). Styles live in
//! theme/cuda-measured.css; class names start with `cm-`.
//!
//! The HTML sits in markdown as an HTML block, which a blank line would end:
//! text that may hold newlines is written through [`Flat`], which turns
//! them into `&#10;`, and the only literal newlines are between elements.

use super::reports::Table;
use super::{Panel, Runnable, detail_lines, facts, has_ceiling, mark, verdict};
use crate::figures;
use crate::markup::Flat;
use crate::outcome::Outcome;
use cuda_measured_core::record::{Record, Status};
use maud::{Markup, Render, html};

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

/// The opening tag of an editable block's wrapper, which theme/run.js
/// turns into an editor with Run and Reset: the example or stage it runs
/// and the service it posts to, as data attributes (escaped). The code
/// block and the stored panel follow as markdown, then [`RUN_CLOSE`].
pub fn run_open(r: &Runnable<'_>) -> String {
    let mut tag = format!(
        "<div class=\"cm-run\" data-example=\"{}\"",
        attribute(r.example)
    );
    let attrs = [
        ("data-stage", r.stage),
        ("data-run-service", r.links.service.as_deref()),
        ("data-run-help", r.links.help.as_deref()),
    ];
    for (name, value) in attrs {
        if let Some(value) = value {
            tag.push_str(&format!(" {name}=\"{}\"", attribute(value)));
        }
    }
    tag.push('>');
    tag
}

/// The closing tag of [`run_open`]'s wrapper.
pub const RUN_CLOSE: &str = "</div>";

/// Text escaped for a double-quoted attribute, on one line.
fn attribute(text: &str) -> String {
    Flat(text).render().into_string()
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
            @for note in super::budget_notes(r) {
                p.cm-note.cm-budget { (Flat(&note)) }
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

/// A table of a stored report, with the notes of the marks it uses.
pub fn report_table(t: &Table) -> Markup {
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

    // The editor's wrapper names the example, the stage and the service,
    // escaped, and leaves out what is not set.
    #[test]
    fn run_wrapper_attributes() {
        let links = crate::config::RunLinks {
            service: Some("http://127.0.0.1:8787".into()),
            help: Some("https://github.com/o/b#run-in-the-page".into()),
        };
        let tag = run_open(&Runnable {
            example: "r/<tree>&\"x\"",
            stage: Some("sum/stage1"),
            links: &links,
        });
        assert_eq!(
            tag,
            "<div class=\"cm-run\" data-example=\"r/&lt;tree&gt;&amp;&quot;x&quot;\" data-stage=\"sum/stage1\" data-run-service=\"http://127.0.0.1:8787\" data-run-help=\"https://github.com/o/b#run-in-the-page\">"
        );
        let none = crate::config::RunLinks::default();
        let bare = run_open(&Runnable {
            example: "r/tree",
            stage: None,
            links: &none,
        });
        assert_eq!(bare, "<div class=\"cm-run\" data-example=\"r/tree\">");
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
}
