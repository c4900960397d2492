//! A directive's [`Value`] as the page shows it: a figure or "not
//! measured" inline, a ladder as a bar chart, and every other block by the
//! module of its kind (each artifact kind under [`crate::artifacts`], the
//! status page by [`crate::status_page`]); HTML for the `html` renderer,
//! markdown for every other.

use super::{Ladder, Value};
use crate::artifacts::{allreduce, host, peers, repeatability, sanitizer, sass};
use crate::figures;
use crate::render::{self, Target};
use crate::status_page;
use maud::{Markup, html};

/// The text replacing a directive. `alone` says whether it stands alone on
/// its line, where block content (a ladder) may open its own block.
pub fn render(target: Target, value: &Value, alone: bool) -> String {
    match target {
        Target::Html => html(value, alone),
        Target::Markdown => markdown(value, alone),
    }
}

/// A directive's value. Ladders, comparisons and reports standing alone on
/// their line become a block; inline, they are kept on one line.
fn html(value: &Value, alone: bool) -> String {
    let block = match value {
        Value::Figure { text, title } => {
            return html! { span.cm-value title=(title) { (text) } }.into_string();
        }
        Value::Quoted { text, source } => {
            return html! {
                span.cm-quoted title={ "quoted from " (source) ", not measured by this book" } { (text) }
                " (" a href=(source) { "source" } ")"
            }
            .into_string();
        }
        Value::Unmeasured(reason) => {
            return html! { span.cm-unmeasured title=(reason) { "not measured" } }.into_string();
        }
        Value::Mistake(message) => return render::html::directive_error(message),
        Value::Sass(view) => sass::html(view),
        Value::Sanitizer(view) => sanitizer::html(view),
        Value::Host(view) => host::html(view),
        Value::Allreduce(view) => allreduce::html(view),
        Value::Ladder(ladder) => ladder_chart(ladder),
        Value::Peers(view) => peers::html(view),
        Value::Repeatability(view) => repeatability::html(view),
        Value::Status(page) => status_page::html(page),
    };
    if alone {
        format!("{}\n", block.into_string())
    } else {
        block.into_string().replace('\n', "")
    }
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

/// A directive's value.
fn markdown(value: &Value, alone: bool) -> String {
    match value {
        Value::Figure { text, .. } => text.clone(),
        Value::Quoted { text, source } => format!("{text} ([source]({source}))"),
        Value::Unmeasured(_) => "*(not measured)*".into(),
        Value::Mistake(message) => render::markdown::directive_error(message),
        // A table cannot interrupt a paragraph: open it with a blank line.
        block => {
            let table = match block {
                Value::Ladder(ladder) => ladder_table(ladder),
                Value::Peers(view) => peers::markdown(view),
                Value::Repeatability(view) => repeatability::markdown(view),
                Value::Status(page) => status_page::markdown(page),
                Value::Sass(view) => sass::markdown(view),
                Value::Sanitizer(view) => sanitizer::markdown(view),
                Value::Host(view) => host::markdown(view),
                Value::Allreduce(view) => allreduce::markdown(view),
                Value::Figure { .. }
                | Value::Quoted { .. }
                | Value::Unmeasured(_)
                | Value::Mistake(_) => {
                    unreachable!("matched above")
                }
            };
            if alone {
                format!("\n{table}")
            } else {
                format!("\n\n{table}")
            }
        }
    }
}

fn ladder_table(ladder: &Ladder) -> String {
    let of = match ladder.figure.as_str() {
        "gbs" => "peak",
        "tflops" => "ceiling",
        _ => "longest",
    };
    let mut out = format!(
        "| example ({}) | {} | % of {of} |\n|---|---:|---:|\n",
        ladder.size.words(),
        ladder.what()
    );
    for rung in &ladder.rungs {
        match &rung.figure {
            Ok((v, pct, _)) => out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                rung.id,
                if ladder.figure == "gbs" {
                    figures::gbs_number(*v)
                } else {
                    figures::named(&ladder.figure, *v)
                },
                figures::percent(*pct)
            )),
            Err(_) => out.push_str(&format!("| `{}` | not measured | |\n", rung.id)),
        }
    }
    out
}

#[cfg(test)]
mod tests {

    // A quoted figure reads as its text, marked and linked to its source,
    // in HTML and in markdown.
    #[test]
    fn a_quote_links_its_source() {
        let value = Value::Quoted {
            text: "8.054 ms".into(),
            source: "https://x.org/r.pdf".into(),
        };
        assert_eq!(
            render(Target::Html, &value, false),
            "<span class=\"cm-quoted\" title=\"quoted from https://x.org/r.pdf, not measured by this book\">8.054 ms</span> (<a href=\"https://x.org/r.pdf\">source</a>)"
        );
        assert_eq!(
            render(Target::Markdown, &value, false),
            "8.054 ms ([source](https://x.org/r.pdf))"
        );
    }

    use super::*;
    use crate::values::{Peers, Repeatability};
    use cuda_measured_core::record::Status;

    fn no_blank_lines(html: &str) {
        assert!(
            !html.lines().any(|l| l.trim().is_empty()),
            "blank line in:\n{html}"
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
                    figure: Err(crate::names::LookupError::Missing("b".into())),
                },
                crate::values::Rung {
                    id: "c".into(),
                    figure: Ok((5000.0, 104.2, Status::Wrong)),
                },
            ],
        }));
        let block = html(&ladder, true);
        assert!(block.contains("style=\"width: 20.0%\""), "{block}");
        assert!(block.contains("style=\"width: 100.0%\""), "{block}");
        assert!(block.contains("cm-rung-fill cm-wrong"), "{block}");
        assert!(
            block.contains("title=\"`b` is not measured yet\""),
            "{block}"
        );
        no_blank_lines(&block);
        assert!(!html(&ladder, false).contains('\n'));
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
        let block = html(&Value::Status(Box::new(page)), true);
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
                report: crate::artifacts::peers::test_report(),
                file: "results/peers/sum_f32.json".into(),
                stale: stale.map(str::to_string),
            }))
        };
        let current = html(&peers(None), true);
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
        let stale = html(&peers(Some("measured for an earlier version of r/a")), true);
        assert!(stale.contains("cm-panel cm-peers cm-stale"), "{stale}");
        assert!(stale.contains("<p class=\"cm-note\">Measured for an earlier version of r/a: "));
        assert!(!html(&peers(None), false).contains('\n'));
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
        let current = html(&repeat(None), true);
        assert!(
            current.starts_with("<div class=\"cm-panel cm-repeatability cm-pass\">"),
            "{current}"
        );
        assert!(
            current.contains("(goal: within 2%) — met.</p>"),
            "{current}"
        );
        no_blank_lines(&current);
        let stale = html(
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

    // A ladder is a table after a blank line; rungs without data say so.
    #[test]
    fn ladder_table() {
        let ladder = Value::Ladder(Box::new(Ladder {
            size: cuda_measured_core::dims::Dims::n(1 << 28),
            gpu: None,
            figure: "gbs".into(),
            rungs: vec![
                crate::values::Rung {
                    id: "a".into(),
                    figure: Ok((960.0, 20.0, Status::Pass)),
                },
                crate::values::Rung {
                    id: "b".into(),
                    figure: Err(crate::names::LookupError::Missing("b".into())),
                },
            ],
        }));
        assert_eq!(
            markdown(&ladder, true),
            "\n| example (N = 2^28) | GB/s | % of peak |\n|---|---:|---:|\n| `a` | 960 | 20.0% |\n| `b` | not measured | |\n"
        );
    }

    // A comparison is its table alone, after a blank line; figures right-aligned.
    #[test]
    fn peers_table_only() {
        let peers = Value::Peers(Box::new(crate::values::Peers {
            report: crate::artifacts::peers::test_report(),
            file: "results/peers/sum_f32.json".into(),
            stale: None,
        }));
        let md = markdown(&peers, true);
        assert!(
            md.starts_with("\n| N | ours µs | CUB µs | CUB (int32 count) µs | torch µs | cupy µs | CUB / ours | ours GB/s | % of read ceiling |\n|---|---:|"),
            "{md}"
        );
        assert!(
            md.contains("| 2^16 | — | 6.048 | — | 17.38 ~ | — | — | — | — |\n"),
            "{md}"
        );
        assert!(md.ends_with("*✗ failed the problem's check · ~ noisy: the noise target was not met before the time-out*\n"), "{md}");
        assert!(!md.contains("<svg"));
    }
}
