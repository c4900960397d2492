//! Replaces byte ranges of a chapter, last first, so that every byte outside
//! a replaced range stays exactly as the author wrote it (no markdown round
//! trip).

use std::ops::Range;

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Bytes replaced.
    pub range: Range<usize>,
    /// Text put in their place.
    pub text: String,
}

/// Applies non-overlapping edits to `content`.
///
/// # Panics
/// When two edits overlap: callers take ranges from one scan, where blocks
/// and directives are disjoint by construction.
pub fn apply(content: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    for pair in edits.windows(2) {
        assert!(
            pair[0].range.end <= pair[1].range.start,
            "overlapping edits {:?} and {:?}",
            pair[0].range,
            pair[1].range
        );
    }
    let mut out = content.to_string();
    for edit in edits.into_iter().rev() {
        out.replace_range(edit.range, &edit.text);
    }
    out
}

/// Fits multi-line replacement `text` (written with `\n`) into its place:
/// every line after the first gets `continuation` (blank lines get it
/// without trailing spaces, so a block quote stays open) and line endings
/// follow the chapter's (`\r\n` when the chapter uses it).
pub fn fit(text: &str, continuation: &str, crlf: bool) -> String {
    let newline = if crlf { "\r\n" } else { "\n" };
    let blank_prefix = continuation.trim_end();
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push_str(newline);
            out.push_str(if line.is_empty() {
                blank_prefix
            } else {
                continuation
            });
        }
        out.push_str(line);
    }
    out
}

/// Whether a chapter uses CRLF line endings.
pub fn uses_crlf(content: &str) -> bool {
    content.contains("\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(range: Range<usize>, text: &str) -> Edit {
        Edit {
            range,
            text: text.into(),
        }
    }

    // Bytes outside the edits, including CRLF and non-ASCII, survive as written.
    #[test]
    fn bytes_outside_edits_are_kept() {
        let content = "α\r\nX\r\n  β\tY γ\r\n";
        let x = content.find('X').unwrap();
        let y = content.find('Y').unwrap();
        let out = apply(content, vec![edit(y..y + 1, "why"), edit(x..x + 1, "ex")]);
        assert_eq!(out, "α\r\nex\r\n  β\twhy γ\r\n");
        assert_eq!(apply(content, vec![]), content);
    }

    // Edits given in any order land where their ranges say.
    #[test]
    fn order_of_edits_does_not_matter() {
        let content = "0123456789";
        let a = apply(
            content,
            vec![edit(1..2, "a"), edit(5..7, ""), edit(8..8, "!")],
        );
        let b = apply(
            content,
            vec![edit(8..8, "!"), edit(1..2, "a"), edit(5..7, "")],
        );
        assert_eq!(a, "0a2347!89");
        assert_eq!(a, b);
    }

    // Overlapping edits are a bug, never silently merged.
    #[test]
    #[should_panic(expected = "overlapping")]
    fn overlapping_edits_panic() {
        apply("0123", vec![edit(0..2, "a"), edit(1..3, "b")]);
    }

    // A replacement inside a list item or block quote keeps every line inside it.
    #[test]
    fn fit_keeps_lines_in_their_container() {
        let cases = [
            ("a\nb", "   ", false, "a\n   b"),
            ("a\n\nb", "> ", false, "a\n>\n> b"),
            ("a\n\nb", "   ", true, "a\r\n\r\n   b"),
            ("one", "  ", false, "one"),
        ];
        for (text, prefix, crlf, want) in cases {
            assert_eq!(fit(text, prefix, crlf), want, "{text:?} {prefix:?}");
        }
    }
}
