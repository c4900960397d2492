//! A table as every renderer lays it out: cells with their tooltips, a
//! heading row and the notes of the marks it uses, and the note a stale
//! stored report carries. What fills them is each report's own (the
//! artifact kinds of `crate::artifacts`, the status page);
//! [`super::html`] and [`super::markdown`] lay them out.

/// One table cell: its text and, where it helps, a tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// A tooltip (HTML only).
    pub title: Option<String>,
}

impl Cell {
    /// A cell of `text`, without a tooltip.
    pub fn new(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            title: None,
        }
    }

    /// A cell of `text` with the tooltip `title`.
    pub fn titled(text: impl Into<String>, title: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            title: Some(title.into()),
        }
    }

    /// The empty cell: no figure for this size.
    pub fn none() -> Self {
        Cell::new("—")
    }
}

/// A table: a heading row, rows, and notes explaining marks used in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Column headings.
    pub head: Vec<Cell>,
    /// Rows, each as long as `head`.
    pub rows: Vec<Vec<Cell>>,
    /// One line per mark that appears in the rows (`✗ failed the problem's check`).
    pub notes: Vec<String>,
}

/// `measured for an earlier version of X` as a sentence with what follows.
pub fn stale_note(reason: &str) -> String {
    let mut chars = reason.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    format!(
        "{}{}: these figures may no longer hold. Run bench/gpu-session.sh on a GPU machine to measure them again.",
        first.unwrap_or_default(),
        chars.as_str()
    )
}
