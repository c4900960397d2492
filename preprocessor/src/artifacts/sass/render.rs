//! A `{{#sass}}` listing ([`SassView`]): a folded `<details>` whose
//! summary gives the kernel's resources and the count line of the region,
//! and whose body is the SASS, one row per instruction (offset,
//! instruction, source line, marks), the region's rows highlighted; as
//! HTML (no blank line inside) or, for other renderers, as a text block.

use super::{LEGEND, SassView};
use crate::markup::{code_fence, code_spans};
use cuda_measured_core::sass::{self, Instruction};
use cuda_measured_core::sass_counts::Marks;
use maud::{Markup, html};

/// Listings longer than this many instructions scroll inside their panel;
/// shorter ones show whole, their highlighted rows in view.
const LONG: usize = 120;

/// The source line of an instruction: `31` in the example's own file
/// `own`, `block_sum.cuh:7` in another, and for code of an inlined
/// function the call after it: `block_sum.cuh:7 (call at 33)`.
fn line_text(i: &Instruction, own: &str) -> String {
    let place = |file: Option<&str>, line: u32| match file {
        Some(f) if !sass::same_file(f, own) => {
            format!("{}:{line}", f.rsplit('/').next().unwrap_or(f))
        }
        _ => line.to_string(),
    };
    match (i.line, i.called_from) {
        (Some(line), Some(call)) => format!(
            "{} (call at {})",
            place(i.file.as_deref(), line),
            place(i.called_from_file.as_deref(), call)
        ),
        (Some(line), None) => place(i.file.as_deref(), line),
        (None, _) => String::new(),
    }
}

/// The words of an instruction's marks, in the legend's order.
fn mark_words(m: &Marks) -> Vec<&'static str> {
    [
        (m.predicated, LEGEND[0].0),
        (m.branch, LEGEND[1].0),
        (m.division, LEGEND[2].0),
    ]
    .into_iter()
    .filter_map(|(on, word)| on.then_some(word))
    .collect()
}

/// The CSS classes of an instruction's row.
fn row_class(m: &Marks) -> String {
    let mut class = String::from("cm-sass-row");
    for (on, name) in [
        (m.in_region, " cm-sass-region"),
        (m.predicated, " cm-sass-pred"),
        (m.branch, " cm-sass-branch"),
        (m.division, " cm-sass-div"),
    ] {
        if on {
            class.push_str(name);
        }
    }
    class
}

/// The listing as an HTML block (one element per line, no blank line).
pub fn html(view: &SassView) -> Markup {
    let reading = view.reading();
    let class = if view.stale.is_some() {
        "cm-panel cm-sass cm-stale"
    } else {
        "cm-panel cm-sass"
    };
    html! {
        div class=(class) data-example=(view.id) data-kernel=(view.kernel.name) {
            "\n"
            details.cm-sass-details {
                summary {
                    span.cm-sass-title {
                        "What the compiler made: " code { (view.kernel.name) } " — " (view.resources())
                        @if view.stale.is_some() { " " span.cm-sass-stale { "(stale)" } }
                    }
                    " "
                    span.cm-sass-counts { (code_spans(&view.count_line())) }
                }
                "\n"
                @if let Some(reason) = &view.stale {
                    p.cm-note { "This listing was made for an earlier version of this code, so the code above may compile differently: " (reason) "." }
                    "\n"
                }
                div class=(if reading.code.len() > LONG { "cm-table cm-sass-scroll cm-sass-long" } else { "cm-table cm-sass-scroll" }) {
                    table.cm-sass-listing {
                        thead {
                            tr { th { "offset" } th { "instruction" } th { "line" } th { "marks" } }
                        }
                        "\n"
                        tbody {
                            @for (i, m) in reading.code.iter().zip(&reading.marks) {
                                tr class=(row_class(m)) {
                                    td.cm-sass-offset { (format!("{:04x}", i.offset)) }
                                    td { code { (i.text) } }
                                    td.cm-sass-line { (line_text(i, &view.source_file)) }
                                    td.cm-sass-marks {
                                        @for word in mark_words(m) {
                                            span class={ "cm-sass-mark cm-sass-mark-" (word) } { (word) } " "
                                        }
                                    }
                                }
                                "\n"
                            }
                        }
                    }
                }
                "\n"
                p.cm-note.cm-sass-legend {
                    @if view.region.is_some() {
                        span.cm-sass-key.cm-sass-region { "highlighted" } ": compiled from the anchor's lines; "
                    }
                    @for (k, (word, meaning)) in LEGEND.iter().enumerate() {
                        @if k > 0 { "; " }
                        span class={ "cm-sass-mark cm-sass-mark-" (word) } { (word) } ": " (meaning)
                    }
                    "."
                }
                "\n"
                @for note in view.notes() {
                    p.cm-note { (code_spans(&note)) }
                    "\n"
                }
            }
            "\n"
        }
    }
}

/// The listing for renderers other than HTML: the summary and count line
/// as text, then the instructions in a text block, the region's rows
/// marked `>`.
pub fn markdown(view: &SassView) -> String {
    let reading = view.reading();
    let mut out = format!(
        "**What the compiler made:** `{}` — {}{}\n\n{}\n\n",
        view.kernel.name,
        view.resources(),
        if view.stale.is_some() { " (stale)" } else { "" },
        view.count_line()
    );
    if let Some(reason) = &view.stale {
        out.push_str(&format!(
            "*This listing was made for an earlier version of this code: {reason}.*\n\n"
        ));
    }
    let lines: Vec<String> = reading
        .code
        .iter()
        .map(|i| line_text(i, &view.source_file))
        .collect();
    let width = lines
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(11);
    let mut listing = format!(
        "  offset  {:<width$} marks            instruction\n",
        "line"
    );
    for ((i, m), line) in reading.code.iter().zip(&reading.marks).zip(&lines) {
        listing.push_str(&format!(
            "{} {:04x}    {:<width$} {:<16} {}\n",
            if m.in_region { ">" } else { " " },
            i.offset,
            line,
            mark_words(m).join(" "),
            i.text
        ));
    }
    out.push_str(&code_fence("text", &listing));
    let legend: Vec<String> = LEGEND
        .iter()
        .map(|(word, meaning)| format!("{word}: {meaning}"))
        .collect();
    out.push_str(&format!(
        "\n\n*{}{}.* {}\n",
        if view.region.is_some() {
            "> marks the anchor's lines; "
        } else {
            ""
        },
        legend.join("; "),
        view.notes().join(" ")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // A line of the example's own file is its number; one of another file
    // names the file; inlined code adds its call.
    #[test]
    fn line_column_names_other_files() {
        let own = "kernels/r/k.cu";
        let at = |file: &str, line, call: Option<(&str, u32)>| Instruction {
            file: Some(file.into()),
            line: Some(line),
            called_from_file: call.map(|(f, _)| f.into()),
            called_from: call.map(|(_, l)| l),
            ..Instruction::new(0, "EXIT")
        };
        let cuh = "kernels/r/block_sum.cuh";
        let cases = [
            (at(own, 31, None), "31"),
            (at(cuh, 7, Some((own, 33))), "block_sum.cuh:7 (call at 33)"),
            (at(own, 25, Some((own, 40))), "25 (call at 40)"),
            (
                at(cuh, 7, Some((cuh, 18))),
                "block_sum.cuh:7 (call at block_sum.cuh:18)",
            ),
            (Instruction::new(0, "EXIT"), ""),
        ];
        for (i, want) in cases {
            assert_eq!(line_text(&i, own), want);
        }
    }
}
