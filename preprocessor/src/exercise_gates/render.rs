//! The side-by-side table of an exercise stage ([`StageTable`]): starter
//! and solution in two columns, a row per figure and count, and a row per
//! gate whose cells say passed, failed or not measured; as HTML (a
//! `cm-exercise-table`, no blank line inside) or as a markdown table.

use crate::exercise_gates::{Cell, Judged, StageTable};
use maud::{Markup, html};

/// The verdict words and CSS class of a gate cell.
fn gate_words(judged: &Judged) -> (String, Option<&str>, &'static str) {
    match judged {
        Judged::Passed(figure, title) => {
            (format!("{figure} ✓ passed"), Some(title), "cm-gate-passed")
        }
        Judged::Failed(figure, title) => {
            (format!("{figure} ✗ failed"), Some(title), "cm-gate-failed")
        }
        Judged::NotMeasured(why) => ("not measured".into(), Some(&why.reason), "cm-gate-missing"),
    }
}

/// The last part of an example id: `stage3_solution`.
fn short(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}

/// Markdown code spans of a heading as `<code>`, the rest escaped.
fn inline_code(text: &str) -> Markup {
    html! {
        @for (i, part) in text.split('`').enumerate() {
            @if i % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

/// The HTML table, then a line with the solution's overall verdict.
pub fn html_table(t: &StageTable, caption: &str) -> String {
    let cell = |c: &Cell| {
        html! {
            td class=[c.missing.then_some("cm-gate-missing")] title=[c.title.as_deref()] { (c.text) }
        }
    };
    html! {
        div.cm-exercise-measured {
            "\n"
            div.cm-table {
                table.cm-sizes.cm-exercise-table {
                    thead {
                        tr {
                            th { (t.size.words()) }
                            th title=(t.ids[0]) { "starter " code { (short(&t.ids[0])) } }
                            th title=(t.ids[1]) { "solution " code { (short(&t.ids[1])) } }
                        }
                    }
                    "\n"
                    tbody {
                        @for row in &t.rows {
                            tr { td { (inline_code(&row.heading)) } (cell(&row.cells[0])) (cell(&row.cells[1])) }
                            "\n"
                        }
                        @for gate in &t.gates {
                            tr.cm-gate {
                                td { "gate: " (inline_code(&gate.needs)) }
                                @for judged in &gate.cells {
                                    @let (words, title, class) = gate_words(judged);
                                    td class=(class) title=[title] { (words) }
                                }
                            }
                            "\n"
                        }
                    }
                }
            }
            "\n"
            p.cm-note { (summary(t)) " " (caption) }
            "\n"
        }
    }
    .into_string()
}

/// The same table in markdown, then the verdict line.
pub fn markdown_table(t: &StageTable, caption: &str) -> String {
    let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
    let mut out = format!(
        "| {} | starter `{}` | solution `{}` |\n| --- | --- | --- |\n",
        t.size.words(),
        short(&t.ids[0]),
        short(&t.ids[1])
    );
    for row in &t.rows {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            cell(&row.heading),
            cell(&row.cells[0].text),
            cell(&row.cells[1].text)
        ));
    }
    for gate in &t.gates {
        let [a, b] = gate.cells.each_ref().map(|j| gate_words(j).0);
        out.push_str(&format!(
            "| gate: {} | {} | {} |\n",
            cell(&gate.needs),
            cell(&a),
            cell(&b)
        ));
    }
    out.push_str(&format!("\n*{} {caption}*\n", summary(t)));
    out
}

/// `The solution passes all 3 gates.`, `... fails 1 of 3: ...`, or how
/// many are not measured yet.
pub fn summary(t: &StageTable) -> String {
    let total = t.gates.len();
    let solution = t.gates.iter().map(|g| (&g.needs, &g.cells[1]));
    let failed: Vec<&str> = solution
        .clone()
        .filter(|(_, j)| matches!(j, Judged::Failed(..)))
        .map(|(needs, _)| needs.as_str())
        .collect();
    let missing = solution
        .filter(|(_, j)| matches!(j, Judged::NotMeasured(_)))
        .count();
    let gates = if total == 1 { "gate" } else { "gates" };
    match (failed.as_slice(), missing) {
        ([], 0) if total == 1 => "The solution passes its one gate.".to_string(),
        ([], 0) => format!("The solution passes all {total} {gates}."),
        ([], m) => format!("{m} of the solution's {total} {gates} not measured yet."),
        (f, m) => {
            let also = if m > 0 {
                format!(" ({m} not measured yet)")
            } else {
                String::new()
            };
            format!(
                "The solution fails {} of {total} {gates}{also}: {}.",
                f.len(),
                f.join("; ")
            )
        }
    }
}
