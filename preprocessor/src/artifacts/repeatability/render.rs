//! A `{{#repeatability}}` report ([`Repeatability`]) as a reader sees
//! it: the verdict (the largest difference of medians held to the goal),
//! the GPU and the day, then every example and size in both runs; greyed,
//! saying why, when it no longer describes the book. As HTML or, for
//! other renderers, markdown.

use super::Repeatability;
use crate::figures;
use crate::markup::Flat;
use crate::render::html::report_table;
use crate::render::markdown::{cell, table as md_table};
use crate::render::reports::{Cell, Table, stale_note};
use cuda_measured_core::repeatability::{GOAL_FLOOR_US, GOAL_PCT, Report};
use maud::{Markup, html};

/// A `{{#repeatability}}` report: the verdict, then every row. A report
/// that no longer describes the book is greyed like a stale panel, says
/// why, and carries the reason as its tooltip.
pub fn html(p: &Repeatability) -> Markup {
    let r = &p.report;
    let class = match (&p.stale, r.goal_met) {
        (Some(_), _) => "cm-panel cm-repeatability cm-stale",
        (None, true) => "cm-panel cm-repeatability cm-pass",
        (None, false) => "cm-panel cm-repeatability cm-wrong",
    };
    let title = p.stale.as_deref().map(stale_note);
    html! {
        div class=(class) title=[title.as_deref()] {
            "\n"
            div.cm-head {
                span.cm-mark { (if r.goal_met { "✓" } else { "✗" }) } " "
                span.cm-verdict { "The book measured twice, back to back" } " "
                span.cm-facts { (Flat(&repeatability_facts(r))) }
            }
            "\n"
            @if let Some(note) = &title {
                p.cm-note { (Flat(note)) }
                "\n"
            }
            p.cm-note { (Flat(&repeatability_summary(r))) "." }
            "\n"
            (report_table(&repeatability_table(r)))
            "\n"
        }
    }
}

/// A `{{#repeatability}}` report: the verdict, then every row (and why it
/// is not current).
pub fn markdown(p: &Repeatability) -> String {
    let r = &p.report;
    let mut out = String::new();
    if let Some(reason) = &p.stale {
        out.push_str(&format!("*{}*\n\n", cell(&stale_note(reason))));
    }
    out.push_str(&format!(
        "**{}.** {}\n\n{}",
        repeatability_summary(r),
        repeatability_facts(r),
        md_table(&repeatability_table(r))
    ));
    out
}

/// The GPU and date line of the repeatability report, saying whether the
/// two runs were on one physical GPU when the records tell.
pub fn repeatability_facts(report: &Report) -> String {
    let gpus = match report.same_gpu {
        Some(true) => " · both runs on one GPU",
        Some(false) => " · the runs not all on one GPU (several of this model)",
        None => "",
    };
    format!(
        "{}{gpus} · measured {}",
        report.gpu,
        figures::date(&report.measured_at)
    )
}

/// The one-sentence verdict of the repeatability report.
pub fn repeatability_summary(report: &Report) -> String {
    format!(
        "Largest difference over medians of {GOAL_FLOOR_US} µs or more: {:.2}% (goal: within {GOAL_PCT}%) — {}",
        report.max_abs_diff_pct_over_floor,
        if report.goal_met { "met" } else { "not met" }
    )
}

/// The repeatability table: each example and size in both runs.
pub fn repeatability_table(report: &Report) -> Table {
    let head = vec![
        Cell::new("example"),
        Cell::new("N"),
        Cell::titled("first µs", "median of the first run"),
        Cell::titled("second µs", "median of the second run"),
        Cell::titled("difference", "(second − first) / first"),
        Cell::new(""),
    ];
    let rows = report
        .rows
        .iter()
        .map(|r| {
            let note = if r.first_us.min(r.second_us) < GOAL_FLOOR_US {
                format!("below {GOAL_FLOOR_US} µs: not held to the goal")
            } else if r.diff_pct.abs() > GOAL_PCT {
                format!("over the {GOAL_PCT}% goal")
            } else {
                String::new()
            };
            vec![
                Cell::new(&r.example),
                Cell::new(r.n.to_string()),
                Cell::new(figures::us_number(r.first_us)),
                Cell::new(figures::us_number(r.second_us)),
                Cell::new(figures::signed_percent(r.diff_pct)),
                Cell::new(note),
            ]
        })
        .collect();
    Table {
        head,
        rows,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(row: &[Cell]) -> Vec<&str> {
        row.iter().map(|c| c.text.as_str()).collect()
    }

    // Small medians are listed but not held to the goal; the verdict says
    // whether the goal was met.
    #[test]
    fn repeatability_rows_and_verdict() {
        let report: Report = serde_json::from_value(serde_json::json!({
            "gpu": "NVIDIA H200", "measured_at": "2026-11-29T17:00:00Z",
            "rows": [
                {"example": "r/a", "n": 1048576, "first_us": 5.9, "second_us": 6.3, "diff_pct": 6.78},
                {"example": "r/a", "n": 268435456u64, "first_us": 248.6, "second_us": 249.4, "diff_pct": 0.32},
                {"example": "r/b", "n": 268435456u64, "first_us": 300.0, "second_us": 309.0, "diff_pct": 3.0}
            ],
            "max_abs_diff_pct_over_floor": 3.0, "goal_met": false
        }))
        .unwrap();
        let table = repeatability_table(&report);
        let want: [&[&str]; 3] = [
            &[
                "r/a",
                "2^20",
                "5.900",
                "6.300",
                "+6.78%",
                "below 20 µs: not held to the goal",
            ],
            &["r/a", "2^28", "248.6", "249.4", "+0.32%", ""],
            &[
                "r/b",
                "2^28",
                "300.0",
                "309.0",
                "+3.00%",
                "over the 2% goal",
            ],
        ];
        for (row, want) in table.rows.iter().zip(want) {
            assert_eq!(texts(row), want);
        }
        assert_eq!(
            repeatability_summary(&report),
            "Largest difference over medians of 20 µs or more: 3.00% (goal: within 2%) — not met"
        );
        assert_eq!(
            repeatability_facts(&report),
            "NVIDIA H200 · measured 2026-11-29"
        );
    }
}
