//! Panels of examples, shared tables and directive errors as plain
//! markdown, for renderers
//! other than HTML (mdBook's `markdown` output, PDF and e-book backends):
//! a header line, a table of sizes, and failures as text blocks.

use super::reports::Table;
use super::{Panel, detail_lines, facts, has_ceiling, mark, verdict};
use crate::figures;
use crate::markup::code_fence;
use crate::outcome::Outcome;
use cuda_measured_core::record::{Record, Status};

/// The results panel of one example.
pub fn panel(p: &Panel<'_>) -> String {
    match p.outcome {
        Outcome::Fresh(r) => record_panel(p.id, r, false, None),
        Outcome::Unstored { record, reason } => record_panel(p.id, record, false, Some(reason)),
        Outcome::Stale(r) => record_panel(p.id, r, true, None),
        Outcome::Missing => format!(
            "*`{}`: not measured yet. Build the book on a machine with a GPU to measure it.*\n",
            p.id
        ),
        Outcome::Broken(message) => format!(
            "**This example cannot be run:** {}\n\n{}\n",
            cell(message),
            code_fence("text", p.raw)
        ),
    }
}

/// A record's panel; `unstored` is why a record measured in this build
/// could not be written to the store.
fn record_panel(id: &str, r: &Record, stale: bool, unstored: Option<&str>) -> String {
    let mut out = format!(
        "**{} `{id}` {}** · {}\n",
        mark(r.status),
        verdict(r),
        facts(r)
    );
    if stale {
        out.push_str(
            "\n*Measured for an earlier version of this code: these figures may no longer hold.*\n",
        );
    }
    if r.quick {
        out.push_str(&format!("\n*{}*\n", super::QUICK_NOTE));
    }
    if let Some(reason) = unstored {
        out.push_str(&format!(
            "\n**Measured in this build but NOT stored** ({}): this page shows this build's figures, and the next build measures the example again.\n",
            cell(reason)
        ));
    }
    if r.status != Status::Pass && !r.message.is_empty() {
        out.push_str(&format!("\n{}\n", cell(&r.message)));
    }
    if !r.sizes.is_empty() {
        let ceiling = has_ceiling(r);
        let kinds = super::kind_columns(r);
        out.push_str(&format!(
            "\n| {} | median | min–max | samples | spread |{} GB/s | % peak |{} error (tolerance) | check | labels |\n",
            super::size_heading(r),
            kinds
                .iter()
                .map(|(heading, _)| format!(" {heading} |"))
                .collect::<String>(),
            if ceiling {
                format!(" % {} ceiling |", super::ceiling_kind(r))
            } else {
                String::new()
            }
        ));
        out.push_str(&format!(
            "|---:|---:|---:|---:|---:|{}---:|---:|{}---:|:---:|---|\n",
            "---:|".repeat(kinds.len()),
            if ceiling { "---:|" } else { "" }
        ));
        for s in &r.sizes {
            let ceiling_cell = match (ceiling, s.pct_ceiling) {
                (false, _) => String::new(),
                (true, Some(p)) => format!(" {} |", figures::percent(p)),
                (true, None) => " n/a |".into(),
            };
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |{} {} | {} |{ceiling_cell} {} ({}) | {} | {} |\n",
                super::row_cell(s),
                figures::time_us(s.median_us),
                figures::time_range_us(s.min_us, s.max_us),
                s.samples,
                figures::fraction_as_percent(s.rel_spread),
                kinds
                    .iter()
                    .map(|(_, figure)| format!(" {} |", super::kind_cell(s, figure)))
                    .collect::<String>(),
                figures::gbs_number(s.gbs),
                figures::percent(s.pct_peak),
                figures::error(s.error),
                figures::error(s.tolerance),
                if s.pass { "✓" } else { "✗" },
                cell(&s.labels.join(", ")),
            ));
        }
    }
    for note in super::budget_notes(r) {
        out.push_str(&format!("\n*{}*\n", cell(&note)));
    }
    out.push('\n');
    for line in detail_lines(r) {
        out.push_str(&format!("- {}\n", cell(&line)));
    }
    if r.status != Status::Pass && !r.log.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            code_fence("text", &r.log.replace("\r\n", "\n"))
        ));
    }
    out
}

/// Text made safe for one table cell or line: no pipes, no newlines.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace("\r\n", " ")
        .replace('\n', " ")
}

/// A stored report's table: text columns left, figures right; then the
/// notes of the marks it uses.
pub fn table(t: &Table) -> String {
    let numeric = |i: usize| {
        t.rows.iter().all(|row| {
            row[i].text == "—"
                || row[i]
                    .text
                    .starts_with(|c: char| c.is_ascii_digit() || "+−±".contains(c))
        })
    };
    let mut out = String::from("|");
    for c in &t.head {
        out.push_str(&format!(" {} |", cell(&c.text)));
    }
    out.push_str("\n|");
    for i in 0..t.head.len() {
        out.push_str(if i > 0 && numeric(i) { "---:|" } else { "---|" });
    }
    out.push('\n');
    for row in &t.rows {
        out.push('|');
        for c in row {
            out.push_str(&format!(" {} |", cell(&c.text)));
        }
        out.push('\n');
    }
    if !t.notes.is_empty() {
        out.push_str(&format!("\n*{}*\n", cell(&t.notes.join(" · "))));
    }
    out
}

/// A directive that cannot be read.
pub fn directive_error(message: &str) -> String {
    format!("**[{}]**", cell(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::record;
    use cuda_measured_core::declaration::Expectation;

    // A measured example reads as a header line and a table of sizes.
    #[test]
    fn measured_panel_is_a_table() {
        let outcome = Outcome::Fresh(record(Status::Pass, Expectation::Pass));
        let md = panel(&Panel {
            anchor: None,
            id: "r/tree",
            outcome: &outcome,
            raw: "",
        });
        assert!(md.starts_with("**✓ `r/tree` pass** · NVIDIA H200"), "{md}");
        assert!(md.contains("| 2^28 | 251.2 µs | 250.0–260.0 µs | 50 | 1.2% | 4275 | 89.1% | 3.1e-08 (1.0e-05) | ✓ |  |"), "{md}");
    }

    // A record measured but not stored says so under its header line.
    #[test]
    fn unstored_record_warns() {
        let outcome = Outcome::Unstored {
            record: record(Status::Pass, Expectation::Pass),
            reason: "results/r/tree.json: Is a directory (os error 21)".into(),
        };
        let md = panel(&Panel {
            anchor: None,
            id: "r/tree",
            outcome: &outcome,
            raw: "",
        });
        assert!(
            md.contains("\n\n**Measured in this build but NOT stored** (results/r/tree.json: Is a directory (os error 21)): this page shows this build's figures, and the next build measures the example again.\n\n| N |"),
            "{md}"
        );
    }

    // Failures keep their log in a text block; broken blocks show the source.
    #[test]
    fn failures_and_broken_blocks() {
        let outcome = Outcome::Fresh(record(Status::Wrong, Expectation::Wrong));
        let md = panel(&Panel {
            anchor: None,
            id: "r/tree",
            outcome: &outcome,
            raw: "",
        });
        assert!(md.contains("wrong · expected failure"), "{md}");
        assert!(
            md.contains("```text\nline one\n\nline <three>\n```"),
            "{md}"
        );
        let broken = Outcome::Broken("src/a.md:3: bad | worse".into());
        let md = panel(&Panel {
            anchor: None,
            id: "?",
            outcome: &broken,
            raw: "```cuda run\n```",
        });
        assert!(md.contains("bad \\| worse"), "{md}");
        assert!(md.contains("````text\n```cuda run\n```\n````"), "{md}");
    }
}
