//! The subcommands of `mdbook-cuda`, one file each: an `Args` struct for
//! clap and an `execute` function. Without a subcommand the binary speaks
//! mdBook's preprocessor protocol ([`run`]).

pub mod check;
pub mod run;
pub mod status;
pub mod supports;

/// Lays out rows under a header in aligned columns, for terminals.
pub(crate) fn format_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    // Columns line up whatever the width of non-ASCII cells.
    #[test]
    fn table_columns_align() {
        let table = super::format_table(
            &["id", "state"],
            &[
                vec!["größe".into(), "stale".into()],
                vec!["a".into(), "current".into()],
            ],
        );
        assert_eq!(table, "id     state\ngröße  stale\na      current\n");
    }
}
