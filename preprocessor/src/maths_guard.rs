//! Dollar signs and backticks in the HTML the plugin writes, as `&#36;`
//! and `&#96;`. mdbook-katex, which runs after the plugin, reads a `$`
//! anywhere outside markdown code as a maths delimiter and a backtick as
//! the start of inline code: SASS listings hold both
//! (`CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath)`),
//! and so can program output and messages, and one of them pairs with the
//! page's next one, leaving the formulas in between (or after) raw TeX.
//! Escaped are those inside `<pre>`, `<code>`, `<script>` and `<style>`
//! elements and inside HTML tags (attribute values); markdown code, which
//! mdbook-katex skips itself, and the text around the elements, where the
//! author's maths is, keep theirs. (mdBook's renderer writes them back as
//! the characters.)

use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// Elements whose text is never maths.
static LITERAL: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    ["pre", "code", "script", "style"]
        .map(|tag| Regex::new(&format!(r"(?is)<{tag}\b.*?</{tag}\s*>")).unwrap())
});

/// An HTML tag, attributes and all.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"</?[A-Za-z][^<>"']*(?:(?:"[^"]*"|'[^']*')[^<>"']*)*>"#).unwrap()
});

/// `text` with every `$` and `` ` `` inside an HTML element that is not
/// maths, or inside a tag, written `&#36;` and `&#96;`.
pub fn escaped_in_html(text: &str) -> String {
    if !text.contains(['$', '`']) {
        return text.to_string();
    }
    let markdown_code: Vec<Range<usize>> = crate::scan::scan(text).code;
    let mut html: Vec<Range<usize>> = TAG.find_iter(text).map(|m| m.range()).collect();
    for element in LITERAL.iter() {
        html.extend(element.find_iter(text).map(|m| m.range()));
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (at, c) in text.char_indices() {
        let entity = match c {
            '$' => "&#36;",
            '`' => "&#96;",
            _ => {
                out.push(c);
                continue;
            }
        };
        if html.iter().any(|r| r.contains(&at)) && !markdown_code.iter().any(|r| r.contains(&at)) {
            out.push_str(entity);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // A SASS symbol in a listing (its backtick too) and a dollar in a
    // tooltip are escaped, so the page's maths after them still pairs its
    // own delimiters.
    #[test]
    fn dollars_in_html_are_escaped() {
        let sass = "<td><code>CALL.REL.NOINC `($__internal_0_$__slowpath)</code></td>";
        assert_eq!(
            escaped_in_html(sass),
            "<td><code>CALL.REL.NOINC &#96;(&#36;__internal_0_&#36;__slowpath)</code></td>"
        );
        assert_eq!(
            escaped_in_html("<span title=\"costs $5\">x</span> and $x^2$"),
            "<span title=\"costs &#36;5\">x</span> and $x^2$"
        );
        assert_eq!(
            escaped_in_html("<pre class=\"out\">$ ./run\n</pre>"),
            "<pre class=\"out\">&#36; ./run\n</pre>"
        );
    }

    // A listing's rows are HTML blocks of their own, blank lines between.
    #[test]
    fn rows_of_a_listing_are_escaped() {
        let rows = "<tr class=\"r\"><td><code>MOV R6, 0x40c0</code></td></tr>\n\n<tr class=\"r\"><td><code>CALL.REL.NOINC `($__internal_0_$__slowpath)</code></td><td class=\"l\">106</td></tr>\n\n<tr class=\"r\"><td><code>BSYNC B0</code></td></tr>\n";
        let out = escaped_in_html(rows);
        assert!(!out.contains(['$', '`']), "{out}");
    }

    // The author's maths, and markdown code (which mdbook-katex skips),
    // keep their dollars.
    #[test]
    fn maths_and_markdown_code_keep_theirs() {
        for kept in [
            "the sum $\\sum_i x_i$ and\n\n$$y = e^x$$\n",
            "a span `$HOME` here",
            "```sh\necho $PATH <code>$x</code>\n```\n",
        ] {
            assert_eq!(escaped_in_html(kept), kept, "{kept}");
        }
    }
}
