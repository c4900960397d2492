//! The reader's text put into the book's file in place of the region the
//! page shows: the lines [`source::shown_lines`] picks (the code
//! [`source::display_code`] shows, so the page and the service agree on
//! the region by construction), from the first shown line that is not
//! blank to the last. The book's header and the lines outside the region
//! stay as the book has them; a header the reader writes is refused.

use cuda_runner::source::{self, HEADER_OPEN};

/// The book's text with the reader's in place of the shown region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spliced {
    /// The whole text to resolve and compile.
    pub text: String,
    /// Lines of `text` before the reader's first line.
    pub offset: usize,
    /// Lines of the reader's text.
    pub lines: usize,
    /// The reader's text as sent, to splice again elsewhere.
    pub reader: String,
}

impl Spliced {
    /// The reader's 1-based line that is line `line` (1-based) of
    /// [`Spliced::text`], when it is one of the reader's.
    pub fn reader_line(&self, line: usize) -> Option<usize> {
        let first = self.offset + 1;
        // An error "at the end of the input" names the line after the last.
        (line >= first && line <= self.offset + self.lines.max(1) + 1)
            .then(|| (line - self.offset).min(self.lines.max(1)))
    }
}

/// Why the reader's text cannot be spliced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    /// The reader wrote an example header.
    #[error(
        "line {line}: the source holds an example header (`/*+++`); the problem, sizes, launches and check are the book's: send only the code the page shows"
    )]
    ReaderHeader {
        /// 1-based line in the reader's text.
        line: usize,
    },
    /// The region the page shows is not one run of lines of the book's
    /// file (an anchor used twice with code between): the service cannot
    /// tell where the reader's text goes.
    #[error(
        "this example's page shows pieces of its file that are not one run of lines; it cannot be run from the page"
    )]
    NotOneRegion,
    /// The book's file does not have the anchor (the book changed under
    /// the service).
    #[error("the book's file no longer has the region the page shows: {0}")]
    Book(String),
}

/// `reader` spliced into `ours` (a kernel file or an inline block) in
/// place of what the page shows for `anchor`.
pub fn splice(ours: &str, anchor: Option<&str>, reader: &str) -> Result<Spliced, SpliceError> {
    let reader = reader.replace("\r\n", "\n");
    if let Some(at) = reader
        .lines()
        .position(|l| l.trim_start().starts_with(HEADER_OPEN) || l.contains(HEADER_OPEN))
    {
        return Err(SpliceError::ReaderHeader { line: at + 1 });
    }
    let lines: Vec<&str> = ours.lines().collect();
    let shown = source::shown_lines(ours, anchor, "the book's file")
        .map_err(|e| SpliceError::Book(e.to_string()))?;
    let visible: Vec<usize> = shown
        .shown
        .iter()
        .copied()
        .filter(|&i| !lines[i].is_empty())
        .collect();
    let (start, end) = match (visible.first(), visible.last()) {
        (Some(&a), Some(&b)) => (a, b + 1),
        // Nothing shown: the reader's text goes after the header.
        _ => {
            let at = shown.header.last().map_or(0, |h| h + 1);
            (at, at)
        }
    };
    let mut kept_header = Vec::new();
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        if shown.header.contains(&i) {
            kept_header.push(*line);
        } else if !shown.shown.contains(&i) && !shown.markers.contains(&i) {
            return Err(SpliceError::NotOneRegion);
        }
    }
    let reader_lines: Vec<&str> = reader.lines().collect();
    let before = &lines[..start];
    let after = &lines[end..];
    let mut out: Vec<&str> = Vec::with_capacity(lines.len() + reader_lines.len());
    out.extend_from_slice(before);
    out.extend_from_slice(&kept_header);
    out.extend_from_slice(&reader_lines);
    out.extend_from_slice(after);
    let mut text = out.join("\n");
    text.push('\n');
    Ok(Spliced {
        text,
        offset: before.len() + kept_header.len(),
        lines: reader_lines.len(),
        reader: reader.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "/*+++\nproblem = \"sum_f32\"\n+++*/\n\n// helper\n__device__ float twice(float x) { return 2 * x; }\n\n// ANCHOR: body\nextern \"C\" __global__ void k() {\n    int i = 0;\n}\n// ANCHOR_END: body\n";

    // The page's own text spliced back gives a file the page shows the
    // same way, the header untouched; the reader's lines are counted from
    // the region's first line.
    #[test]
    fn the_shown_text_goes_back_where_it_was() {
        let shown = source::display_code(FILE, None, "f").unwrap();
        let spliced = splice(FILE, None, &shown).unwrap();
        assert!(
            spliced
                .text
                .starts_with("/*+++\nproblem = \"sum_f32\"\n+++*/\n")
        );
        assert_eq!(
            source::display_code(&spliced.text, None, "f").unwrap(),
            shown
        );
        assert_eq!(spliced.offset, 4);
        assert_eq!(spliced.reader_line(5), Some(1));
        assert_eq!(spliced.reader_line(4), None);

        let body = source::display_code(FILE, Some("body"), "f").unwrap();
        let edited = body.replace("int i = 0;", "int i = 1;\n    i += 2;");
        let spliced = splice(FILE, Some("body"), &edited).unwrap();
        assert!(spliced.text.contains("__device__ float twice"));
        assert!(
            spliced
                .text
                .contains("    i += 2;\n}\n// ANCHOR_END: body\n")
        );
        // Lines 1-8 are the book's: header, blank, helper, blank, marker.
        assert_eq!(spliced.offset, 8);
        assert_eq!(spliced.reader_line(9), Some(1));
    }

    // A header in the reader's text is refused at its line.
    #[test]
    fn a_reader_header_is_refused() {
        let err = splice(FILE, None, "int x;\n/*+++\nproblem = \"x\"\n+++*/\n").unwrap_err();
        assert_eq!(err, SpliceError::ReaderHeader { line: 2 });
        assert!(err.to_string().starts_with("line 2: "));
    }

    // An anchor shown in two places with code between cannot take one
    // edit.
    #[test]
    fn two_pieces_are_not_one_region() {
        let two = "// ANCHOR: a\nint x;\n// ANCHOR_END: a\nint y;\n// ANCHOR: a\nint z;\n// ANCHOR_END: a\n";
        assert_eq!(
            splice(two, Some("a"), "int w;"),
            Err(SpliceError::NotOneRegion)
        );
        assert!(matches!(
            splice(two, Some("nope"), "int w;"),
            Err(SpliceError::Book(_))
        ));
    }
}
