//! What `{{#exercise TRACK/STAGE}}` puts on a page: the stage's heading,
//! goal and gates, what the reader learns, the lesson, the starter's code
//! and results panel, the pitfalls (with the kernels that make the
//! mistake, measured), the hints and the solution folded away, and the
//! measured figures of starter and solution side by side with every gate
//! judged ([`crate::exercise_gates`]). Text fields are markdown and may
//! hold the book's directives, which are expanded at their own line of the
//! stage file. Gates without current data, and a solution that fails a
//! gate, are problems of the build.

use crate::catalog::exercises::{ExerciseSlot, StageKernels};
use crate::exercise_gates::render as exercise;
use crate::exercise_gates::{self, Judged, StageTable};
use crate::page::Page;
use crate::render::{self, Panel, Runnable, Target};
use crate::report::{Report, Severity};
use crate::splice;
use cuda_measured_core::exercise::{GateKind, Text};

/// The caption under a table with profiler counters.
const COUNTERS_ARE_EVIDENCE: &str = "Profiler counters (Nsight Compute, one run) are evidence for why a time is what it is, not a score: a faster kernel often reads lower.";

/// The text replacing the directive of `slot`, at `place` in the chapter.
pub(crate) fn render(
    page: &Page<'_>,
    slot: &ExerciseSlot,
    directive: &str,
    place: &str,
    report: &mut Report,
) -> String {
    let kernels = match &slot.stage {
        Ok(kernels) => kernels,
        Err(error) => {
            let message = error.to_string();
            report.push(Severity::Malformed, place, directive, &message);
            return render::directive_error(page.target, &message);
        }
    };
    let stage = &kernels.stage;
    let table = exercise_gates::table(stage, page.book.results);
    report_gates(&table, kernels, directive, report);
    let html = page.target == Target::Html;
    let text = |t: &Text, report: &mut Report| page.expand(&t.text, &stage.file, t.line, report);
    let mut parts: Vec<String> = Vec::new();
    if html {
        parts.push(format!(
            "<div class=\"cm-exercise\" data-stage=\"{}\">",
            stage.name
        ));
    }
    parts.push(format!("## {}", stage.title));
    parts.push(format!("**Goal.** {}", text(&stage.goal, report)));
    let gates: Vec<String> = table
        .gates
        .iter()
        .map(|g| format!("- {}", g.needs))
        .collect();
    parts.push(format!(
        "**Gates.** The solution must pass every one, at {}:\n\n{}",
        stage.size.words(),
        gates.join("\n")
    ));
    if !stage.learn.is_empty() {
        let items: Vec<String> = stage
            .learn
            .iter()
            .map(|t| item("- ", &text(t, report)))
            .collect();
        parts.push(format!("**What you will learn**\n\n{}", items.join("\n")));
    }
    parts.push(format!("**Lesson.** {}", text(&stage.lesson, report)));
    parts.push(format!("**Starter:** `{}`", file_name(&stage.starter.path)));
    parts.push(listing(page, kernels.starter, Some(&stage.name)));
    for (pitfall, kernel) in stage.pitfalls.iter().zip(&kernels.pitfalls) {
        parts.push(format!(
            "**Pitfall: {}.** {}",
            pitfall.title,
            text(&pitfall.text, report)
        ));
        if let Some(entry) = kernel {
            parts.push(listing(page, *entry, None));
        }
    }
    if !stage.hints.is_empty() {
        let hints: Vec<String> = stage
            .hints
            .iter()
            .enumerate()
            .map(|(i, t)| item(&format!("{}. ", i + 1), &text(t, report)))
            .collect();
        parts.push(folded(
            html,
            "cm-hints",
            &format!("Hints ({})", hints.len()),
            &hints.join("\n\n"),
        ));
    }
    parts.push(folded(
        html,
        "cm-solution",
        &format!("Solution: {}", file_name(&stage.solution.path)),
        &listing(page, kernels.solution, None),
    ));
    parts.push(format!(
        "**Starter and solution, measured** at {}",
        stage.size.words()
    ));
    let has_counters = stage.gates.iter().any(|g| {
        matches!(
            g.kind,
            GateKind::Profile { .. } | GateKind::ProfileRatio { .. }
        )
    });
    let caption = if has_counters {
        COUNTERS_ARE_EVIDENCE
    } else {
        ""
    };
    parts.push(match page.target {
        Target::Html => exercise::html_table(&table, caption),
        Target::Markdown => exercise::markdown_table(&table, caption),
    });
    if html {
        parts.push("</div>".into());
    }
    let mut out = parts
        .iter()
        .map(|p| p.trim_end())
        .collect::<Vec<_>>()
        .join("\n\n");
    out.push('\n');
    out
}

/// The code of a stage's kernel and, under its first listing, its panel.
/// The stage's starter (`stage` given) runs as the stage, judged by its
/// gates, wherever it is listed; any other kernel runs as its example
/// ([`crate::catalog::Entry::run_id`]).
fn listing(page: &Page<'_>, index: usize, stage: Option<&str>) -> String {
    let results = page.book.results;
    let entry = &results.catalog().entries[index];
    let id = entry.shown_id();
    let raw = format!("the kernel named at {}", entry.place);
    let panel = Panel {
        id: &id,
        anchor: page.book.anchors[index].as_deref(),
        outcome: &results.outcomes()[index],
        raw: &raw,
    };
    let first = entry.repeat_of.is_none();
    let run_id = entry.run_id();
    let runnable = match stage {
        Some(_) => Some(id.as_str()),
        None => run_id.as_deref(),
    }
    .map(|example| Runnable {
        example,
        stage,
        links: page.book.run,
    });
    render::block(
        page.target,
        entry.example(),
        first.then_some(&panel),
        runnable.as_ref(),
    )
}

/// A list item: `marker` before the first line, the rest indented under it.
fn item(marker: &str, text: &str) -> String {
    let indent = " ".repeat(marker.len());
    format!("{marker}{}", splice::fit(text, &indent, false))
}

/// Markdown folded under a summary (HTML), or under a bold label.
fn folded(html: bool, class: &str, summary: &str, body: &str) -> String {
    if html {
        format!(
            "<details class=\"{class}\">\n<summary>{summary}</summary>\n\n{}\n\n</details>",
            body.trim_end()
        )
    } else {
        format!("**{summary}**\n\n{}", body.trim_end())
    }
}

/// `stage3_solution.cu` of `exercise/reduction/stage3_solution.cu`.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The build's problems with a stage's gates: each kernel whose gates
/// lack current data (pending when a GPU run settles it), and each gate
/// the solution fails.
fn report_gates(table: &StageTable, kernels: &StageKernels, directive: &str, report: &mut Report) {
    let file = &kernels.stage.file;
    for (column, role) in ["starter", "solution"].iter().enumerate() {
        let id = &table.ids[column];
        let mut missing = Vec::new();
        let mut waits = true;
        let mut line = None;
        for gate in &table.gates {
            if let Judged::NotMeasured(why) = &gate.cells[column] {
                waits &= why.waits;
                line.get_or_insert(gate.line);
                missing.push(format!("{} ({})", gate.needs, why.reason));
            }
        }
        if let Some(line) = line {
            let severity = if waits {
                Severity::Pending
            } else {
                Severity::Unmeasured
            };
            report.push(
                severity,
                format!("{file}:{line}"),
                directive,
                format!(
                    "{role} `{id}`: gate(s) not measured: {}",
                    missing.join("; ")
                ),
            );
        }
    }
    for gate in &table.gates {
        if let Judged::Failed(figure, _) = &gate.cells[1] {
            report.push(
                Severity::Unmeasured,
                format!("{file}:{}", gate.line),
                directive,
                format!(
                    "the solution `{}` fails its gate `{}`: measured {figure}; change the solution or the gate",
                    table.ids[1], gate.needs
                ),
            );
        }
    }
}
