//! A `{{#sanitizer}}` report ([`SanitizerView`]): a panel whose head gives
//! the check, its counts, the tool, the GPU and the day; then the summary
//! as the tool printed it and each finding, its lines verbatim and, under
//! them, the code at each place it names. A report not run yet is a short
//! panel saying so; one of earlier code is greyed and says why. As HTML
//! (no blank line inside) or, for other renderers, as markdown.

use super::{FindingView, SanitizerView, Stored};
use crate::markup::{Flat, code_fence, code_span, code_spans};
use maud::{Markup, html};

/// Findings shown unfolded; the rest fold under "N more findings".
const SHOWN: usize = 4;

/// The panel as an HTML block.
pub fn html(view: &SanitizerView) -> Markup {
    match &view.stored {
        Err(reason) => html! {
            div.cm-panel.cm-sanitizer.cm-missing data-example=(view.id) data-check=(view.check) {
                "\n"
                div.cm-head {
                    span.cm-mark { "–" } " "
                    span.cm-verdict { (view.title()) ": not run" } " "
                    span.cm-facts { (view.subject()) }
                }
                "\n"
                p.cm-note { (code_spans(&reason.detail())) "." }
                "\n"
            }
        },
        Ok(stored) => report_html(view, stored),
    }
}

fn report_html(view: &SanitizerView, s: &Stored) -> Markup {
    let class = match (&s.stale, s.report.errors, s.report.warnings) {
        (Some(_), _, _) => "cm-panel cm-sanitizer cm-stale",
        (None, 0, 0) => "cm-panel cm-sanitizer cm-pass",
        (None, 0, _) => "cm-panel cm-sanitizer cm-expected",
        (None, _, _) => "cm-panel cm-sanitizer cm-wrong",
    };
    let (shown, folded) = s.findings.split_at(s.findings.len().min(SHOWN));
    html! {
        div class=(class) data-example=(view.id) data-check=(view.check) {
            "\n"
            div.cm-head {
                span.cm-mark { (s.mark()) } " "
                span.cm-verdict { (view.title()) ": " (s.counts()) } " "
                span.cm-facts { (view.subject()) " · " (s.facts()) }
            }
            "\n"
            @if let Some(reason) = &s.stale {
                p.cm-note { "This report is of an earlier version of this code, so its places may not be the lines shown now: " (code_spans(reason)) "." }
                "\n"
            }
            @if s.findings.is_empty() {
                p.cm-note { "No finding: the " (view.check) " check reported nothing in this run." }
                "\n"
            } @else {
                div.cm-sizes {
                    @for f in shown { (finding_html(f)) }
                    @if !folded.is_empty() {
                        details.cm-sanitizer-more {
                            summary { (folded.len()) " more " (if folded.len() == 1 { "finding" } else { "findings" }) }
                            "\n"
                            @for f in folded { (finding_html(f)) }
                        }
                        "\n"
                    }
                }
                "\n"
            }
            @if let Some(summary) = &s.report.summary {
                p.cm-caption { "The tool's summary: " code { (summary) } }
                "\n"
            }
        }
    }
}

fn finding_html(f: &FindingView) -> Markup {
    html! {
        div.cm-sanitizer-finding {
            "\n"
            pre { (Flat(&f.text())) }
            "\n"
            @if !f.sources.is_empty() {
                table.cm-sanitizer-source {
                    tbody {
                        @for line in &f.sources {
                            tr {
                                td.cm-sanitizer-place { (line.place) }
                                td {
                                    @match &line.code {
                                        Some(code) => code { (code) },
                                        None => span.cm-sanitizer-unknown { "(code not shown)" },
                                    }
                                }
                            }
                            "\n"
                        }
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}

/// The report for renderers other than HTML.
pub fn markdown(view: &SanitizerView) -> String {
    let s = match &view.stored {
        Err(reason) => {
            return format!(
                "**{}:** not run ({}). *{}.*\n",
                view.title(),
                view.subject(),
                reason.detail()
            );
        }
        Ok(s) => s,
    };
    let mut out = format!(
        "**{}:** {} {} ({} · {})\n\n",
        view.title(),
        s.mark(),
        s.counts(),
        view.subject(),
        s.facts()
    );
    if let Some(reason) = &s.stale {
        out.push_str(&format!(
            "*This report is of an earlier version of this code: {reason}.*\n\n"
        ));
    }
    if s.findings.is_empty() {
        out.push_str(&format!(
            "No finding: the {} check reported nothing in this run.\n\n",
            view.check
        ));
    }
    for f in &s.findings {
        out.push_str(&code_fence("text", &f.text()));
        out.push_str("\n\n");
        for line in &f.sources {
            match &line.code {
                Some(code) => out.push_str(&format!(
                    "- {}: {}\n",
                    code_span(&line.place),
                    code_span(code)
                )),
                None => out.push_str(&format!("- {}\n", code_span(&line.place))),
            }
        }
        if !f.sources.is_empty() {
            out.push('\n');
        }
    }
    if let Some(summary) = &s.report.summary {
        out.push_str(&format!("The tool's summary: {}\n", code_span(summary)));
    }
    out
}
