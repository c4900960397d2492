//! The host programs of a `{{#host}}` ([`HostView`]): one tab per
//! language, each with the program, the command that ran it for the
//! example and what it printed, with its exit status and check.
//!
//! The tabs are radio buttons and CSS (theme/cuda-measured.css), so they
//! work without JavaScript; each pane also carries its language as a
//! heading, which the tabs hide and print (or a page without the book's
//! CSS) shows, so that the panel reads as three headed sections there.
//! Other renderers get the three sections in markdown. The code is in
//! `<pre><code class="language-…">`, which mdBook's highlighter colours as
//! it does the book's own code blocks.

use super::{HostView, Tab};
use crate::markup::{Flat, code_fence, code_span, code_spans};
use crate::stored::StoredError;
use maud::{Markup, html};

/// The panel as an HTML block (one element per line, no blank line).
pub fn html(view: &HostView) -> Markup {
    let group = view.group();
    html! {
        div class={ "cm-panel cm-host cm-" (view.state()) } data-example=(view.id) data-size=(view.size.0) {
            "\n"
            div.cm-head {
                span.cm-verdict { "The host program in three languages" } " "
                span.cm-facts { (view.subject()) }
            }
            "\n"
            div.cm-host-tabs {
                "\n"
                @for (k, tab) in view.tabs.iter().enumerate() {
                    @let id = format!("{group}-{}", tab.language.key);
                    input type="radio" class={ "cm-host-radio cm-host-radio-" (tab.language.key) } name=(group) id=(id) checked[k == 0];
                    label.cm-host-tab for=(id) {
                        (tab.language.label) " " span.cm-host-mark { (tab.mark()) }
                    }
                    "\n"
                }
                @for tab in &view.tabs {
                    (pane(tab))
                }
            }
            "\n"
        }
    }
}

/// One language's pane.
fn pane(tab: &Tab) -> Markup {
    let l = &tab.language;
    let stale = matches!(&tab.run, Ok(run) if run.stale.is_some());
    let class = format!(
        "cm-host-pane cm-host-pane-{}{}",
        l.key,
        if stale { " cm-stale" } else { "" }
    );
    html! {
        div class=(class) {
            "\n"
            p.cm-host-heading { strong { (l.label) } }
            "\n"
            p.cm-host-label { "The program, " code { (l.program) } ":" }
            "\n"
            // `noplayground`: mdBook would offer to run Rust code on the
            // Rust playground, which has no GPU.
            pre { code class={ "language-" (l.fence) @if l.fence == "rust" { " noplayground" } } { (Flat(&tab.code)) } }
            "\n"
            @match &tab.run {
                Err(reason) => {
                    p.cm-note { (code_spans(&not_run(reason))) }
                    "\n"
                }
                Ok(run) => {
                    @if let Some(reason) = &run.stale {
                        p.cm-note { "This run is of an earlier version of the example or the program, so the code above may print otherwise: " (code_spans(reason)) "." }
                        "\n"
                    }
                    p.cm-host-label { "The command that ran it for this example, in the book's root:" }
                    "\n"
                    pre.cm-host-command { code.language-bash { (Flat(&run.record.command)) } }
                    "\n"
                    p.cm-host-label {
                        "What it printed ("
                        span class=(if run.record.pass { "cm-host-pass" } else { "cm-host-fail" }) {
                            (if run.record.pass { "✓ " } else { "✗ " }) (run.verdict())
                        }
                        "):"
                    }
                    "\n"
                    pre.cm-host-output { code.language-text { (Flat(&run.record.output)) } }
                    "\n"
                    p.cm-caption { (run.facts()) " (" (tab.file) ")" }
                    "\n"
                }
            }
        }
        "\n"
    }
}

/// Why a tab has no run, as a sentence: `Not run yet: results/host/…
/// does not exist; run …`.
fn not_run(reason: &StoredError) -> String {
    match reason {
        StoredError::Absent { .. } => format!("Not run yet: {}.", reason.detail()),
        _ => format!("No run to show: {reason}."),
    }
}

/// The three sections for renderers other than HTML.
pub fn markdown(view: &HostView) -> String {
    let mut out = format!(
        "**The host program in three languages** ({})\n\n",
        view.subject()
    );
    for tab in &view.tabs {
        let l = &tab.language;
        out.push_str(&format!(
            "**{}** {}: {}\n\n{}\n\n",
            l.label,
            tab.mark(),
            code_span(l.program),
            code_fence(l.fence, &tab.code)
        ));
        match &tab.run {
            Err(reason) => out.push_str(&format!("*{}*\n\n", not_run(reason))),
            Ok(run) => {
                if let Some(reason) = &run.stale {
                    out.push_str(&format!(
                        "*This run is of an earlier version of the example or the program: {reason}.*\n\n"
                    ));
                }
                out.push_str(&format!(
                    "Ran: {}\n\nIt printed ({} {}):\n\n{}\n\n*{} ({})*\n\n",
                    code_span(&run.record.command),
                    if run.record.pass { "✓" } else { "✗" },
                    run.verdict(),
                    code_fence("text", &run.record.output),
                    run.facts(),
                    tab.file
                ));
            }
        }
    }
    out
}
