//! Powers of two written one way on a page: `2^20`, as authors type sizes
//! (and as the core prints them), shows as `2²⁰`, as the book's prose
//! writes it, in the text, panels, tooltips and charts of the HTML book.
//! Code is left as written: code blocks and spans, `<pre>`, `<code>`,
//! `<script>` and `<style>`, and a `2^k` in quotes (a size as the author
//! must type it, in an error's fix).

use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// `2^k`, `2^-k`.
static POWER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"2\^(-?[0-9]{1,3})").unwrap());

/// Elements whose text is code or not text at all.
static LITERAL: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    ["pre", "code", "script", "style"]
        .map(|tag| Regex::new(&format!(r"(?is)<{tag}\b.*?</{tag}\s*>")).unwrap())
});

/// `2²⁰` for `"20"`, `2⁻²⁴` for `"-24"`.
pub fn superscript(exponent: &str) -> String {
    let mut out = String::from("2");
    out.extend(exponent.chars().map(|c| match c {
        '-' => '⁻',
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        '9' => '⁹',
        other => other,
    }));
    out
}

/// `text` with every `2^k` outside code written `2ᵏ`.
pub fn in_page(text: &str) -> String {
    let mut literal: Vec<Range<usize>> = crate::scan::scan(text).code;
    for tag in LITERAL.iter() {
        literal.extend(tag.find_iter(text).map(|m| m.range()));
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for caps in POWER.captures_iter(text) {
        let whole = caps.get(0).expect("a match");
        if literal.iter().any(|r| r.contains(&whole.start())) || !stands_alone(text, whole.range())
        {
            continue;
        }
        out.push_str(&text[last..whole.start()]);
        out.push_str(&superscript(&caps[1]));
        last = whole.end();
    }
    out.push_str(&text[last..]);
    out
}

/// Whether the match is a number of its own: not part of a word or a
/// longer number (`x2^3`, `2^20.5`), and not quoted (`"2^20"`, also as
/// HTML writes the quote).
fn stands_alone(text: &str, range: Range<usize>) -> bool {
    let before = &text[..range.start];
    let quoted = ["&quot;", "&#34;", "&#39;"]
        .iter()
        .any(|q| before.ends_with(q));
    let glued_before = before
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '^' | '.' | '"' | '\''));
    let mut after = text[range.end..].chars();
    let next = after.next();
    let decimal = next == Some('.') && after.next().is_some_and(|c| c.is_ascii_digit());
    let glued_after = next.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '^'));
    !quoted && !glued_before && !glued_after && !decimal
}

#[cfg(test)]
mod tests {
    use super::*;

    // Prose, panels' HTML and tooltips get superscripts; a sentence's full
    // stop after the power does not stop it.
    #[test]
    fn powers_in_text_become_superscripts() {
        assert_eq!(
            in_page("At 2^26 the kernel, 2^-24 apart; at N = 2^20."),
            "At 2²⁶ the kernel, 2⁻²⁴ apart; at N = 2²⁰."
        );
        assert_eq!(
            in_page("<td title=\"at N = 2^26 on H200\">2^26</td>"),
            "<td title=\"at N = 2²⁶ on H200\">2²⁶</td>"
        );
        assert_eq!(superscript("10"), "2¹⁰");
    }

    // Code, quoted sizes and longer tokens keep their text: the fix in an
    // error says what to type.
    #[test]
    fn code_and_quoted_sizes_stay_as_written() {
        let kept = [
            "```cuda\nint a = 2^3;\n```\n",
            "write `2^20` here",
            "<pre>n = 2^20</pre>",
            "<code>2^20</code>",
            "e.g. \"2^20\" or &quot;2^20&quot;",
            "x2^3 and 2^20.5 and 2^2^2 and $2^{24}$",
        ];
        for text in kept {
            assert_eq!(in_page(text), text, "{text}");
        }
    }
}
