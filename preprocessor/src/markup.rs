//! The small pieces of markup every renderer writes: a code fence and a
//! code span that the code's own backticks cannot close, markdown code
//! spans as `<code>`, and HTML text with its newlines as character
//! references ([`Flat`]: the HTML sits in markdown as an HTML block, which
//! a blank line would end).

use maud::{Markup, Render, html};
use std::fmt::Write;

/// A fenced code block whose fence is longer than any backtick run in
/// `code`, so the code cannot close it early.
pub fn code_fence(lang: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let code = code.strip_suffix('\n').unwrap_or(code);
    format!("{fence}{lang}\n{code}\n{fence}")
}

/// An inline code span that the text's own backticks cannot close.
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// Escaped text with its newlines as character references.
pub struct Flat<'a>(pub &'a str);

impl Render for Flat<'_> {
    fn render_to(&self, buffer: &mut String) {
        let mut escaped = String::new();
        maud::Escaper::new(&mut escaped)
            .write_str(&self.0.replace("\r\n", "\n"))
            .expect("writing to a String cannot fail");
        buffer.push_str(&escaped.replace('\n', "&#10;"));
    }
}

/// Markdown code spans of a line as `<code>`, the rest escaped.
pub fn code_spans(text: &str) -> Markup {
    html! {
        @for (i, part) in text.split('`').enumerate() {
            @if i % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Code holding backtick fences cannot close the fence it is shown in.
    #[test]
    fn code_fence_outgrows_backticks() {
        assert_eq!(code_fence("cpp", "int x;\n"), "```cpp\nint x;\n```");
        assert_eq!(code_fence("cpp", "a ```` b"), "`````cpp\na ```` b\n`````");
    }

    // A code span outgrows the backticks of its text.
    #[test]
    fn code_spans_hold_backticks() {
        assert_eq!(code_span("a[i]"), "`a[i]`");
        assert_eq!(code_span("x `y` z"), "``x `y` z``");
        assert_eq!(code_span("`y`"), "`` `y` ``");
    }
}
