//! The `{{#status}}` page ([`StatusPage`]) as a reader sees it: the
//! counts, one row per example (its id linked to its panel, its state
//! cell classed for the theme), then the stored evidence the book uses,
//! one row per file grouped by kind, with what makes the rest. As HTML or,
//! for other renderers, markdown tables.

use super::StatusPage;
use crate::evidence::{Evidence, State};
use crate::markup::Flat;
use crate::render::markdown::{cell, table};
use crate::render::reports::{Cell, Table};
use maud::{Markup, html};

/// A `{{#status}}` page: the counts, then one row per example, its id
/// linked to its panel and its state cell classed for the theme; then the
/// stored evidence, when the book uses any.
pub fn html(page: &StatusPage) -> Markup {
    let table = status_table(page);
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
fn evidence_panel(evidence: &Evidence) -> Markup {
    let table = evidence_table(evidence);
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

/// A `{{#status}}` page: the counts, then a plain table of every example;
/// then, when the book uses any, the stored evidence's counts and table.
pub fn markdown(page: &StatusPage) -> String {
    let mut out = format!(
        "*{}*\n\n{}",
        cell(&page.summary()),
        table(&status_table(page))
    );
    if !page.evidence.rows.is_empty() {
        out.push_str(&format!(
            "\n*{}*\n\n{}",
            cell(&page.evidence.summary()),
            table(&evidence_table(&page.evidence))
        ));
    }
    out
}

/// The status table: one row per example, its state, where its block is,
/// the GPU and day of its record, and its key figure (the whole message in
/// the tooltip when the figure shortens one). The example's cell is the
/// one HTML links to its panel.
pub fn status_table(page: &StatusPage) -> Table {
    let head = vec![
        Cell::new("example"),
        Cell::new("state"),
        Cell::titled("where", "the chapter file and line of its block"),
        Cell::titled("GPU", "the GPU its record was measured on"),
        Cell::titled("measured", "the day its record was measured"),
        Cell::titled(
            "key figure",
            "median time and bandwidth at the largest timed size, or what went wrong",
        ),
    ];
    let or_none = |v: &Option<String>| v.as_ref().map_or_else(Cell::none, Cell::new);
    let rows = page
        .rows
        .iter()
        .map(|r| {
            vec![
                Cell::new(&r.id),
                Cell::new(r.state.word()),
                Cell::new(&r.place),
                or_none(&r.gpu),
                or_none(&r.date),
                match &r.detail {
                    Some(whole) => Cell::titled(&r.figure, whole),
                    None => Cell::new(&r.figure),
                },
            ]
        })
        .collect();
    Table {
        head,
        rows,
        notes: Vec::new(),
    }
}

/// The stored evidence of a `{{#status}}` page, grouped by kind (the
/// kind named on its group's first row), each file with its state (the
/// reason in its tooltip), where the book uses it, when and with what it
/// was made, and the command that makes it again when it is not current.
pub fn evidence_table(evidence: &Evidence) -> Table {
    let head = vec![
        Cell::new("evidence"),
        Cell::titled(
            "file",
            "the stored file, linked to the section that uses it",
        ),
        Cell::new("state"),
        Cell::titled(
            "used at",
            "the chapter file and line of each directive reading it",
        ),
        Cell::titled("made", "the day it was made"),
        Cell::titled("tool", "the tool that made it"),
        Cell::titled("to make it", "the command that makes it again"),
    ];
    let or_none = |v: &Option<String>| {
        v.as_ref()
            .filter(|v| !v.is_empty())
            .map_or_else(Cell::none, Cell::new)
    };
    let mut last = None;
    let rows = evidence
        .rows
        .iter()
        .map(|r| {
            let kind = if last == Some(r.kind.word()) {
                Cell::new("")
            } else {
                Cell::new(r.kind.word())
            };
            last = Some(r.kind.word());
            let state = match &r.reason {
                Some(reason) => Cell::titled(r.state.word(), reason),
                None => Cell::new(r.state.word()),
            };
            let remedy = match r.state {
                State::Current => Cell::none(),
                State::Error => Cell::new("fix the directive"),
                State::Stale | State::Missing => Cell::new(r.kind.command()),
            };
            vec![
                kind,
                Cell::new(&r.file),
                state,
                Cell::new(r.places.join(", ")),
                or_none(&r.date),
                or_none(&r.tool),
                remedy,
            ]
        })
        .collect();
    Table {
        head,
        rows,
        notes: evidence.remedy().into_iter().collect(),
    }
}
