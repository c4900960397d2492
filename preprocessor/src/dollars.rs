//! Dollar signs in the HTML the plugin writes, as `&#36;`: SASS symbols
//! (`$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath`), program
//! output and messages hold them, and mdbook-katex, which runs after the
//! plugin, reads a `$` anywhere outside markdown code as a maths delimiter:
//! one such sign pairs with the next and every formula after it on the
//! page stays raw TeX. Escaped are the signs inside `<pre>`, `<code>`,
//! `<script>` and `<style>` elements and inside HTML tags (attribute
//! values); markdown code, which mdbook-katex skips itself, and the text
//! around the elements, where the author's maths is, keep theirs.

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

/// `text` with every `$` inside an HTML element that is not maths, or
/// inside a tag, written `&#36;`.
pub fn escaped_in_html(text: &str) -> String {
    if !text.contains('$') {
        return text.to_string();
    }
    let markdown_code: Vec<Range<usize>> = crate::scan::scan(text).code;
    let mut html: Vec<Range<usize>> = TAG.find_iter(text).map(|m| m.range()).collect();
    for element in LITERAL.iter() {
        html.extend(element.find_iter(text).map(|m| m.range()));
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (at, c) in text.char_indices() {
        let escape = c == '$'
            && html.iter().any(|r| r.contains(&at))
            && !markdown_code.iter().any(|r| r.contains(&at));
        if escape {
            out.push_str("&#36;");
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // A SASS symbol in a listing and a dollar in a tooltip are escaped, so
    // the page's maths after them still pairs its own delimiters.
    #[test]
    fn dollars_in_html_are_escaped() {
        let sass = "<td><code>CALL.REL.NOINC `($__internal_0_$__slowpath)</code></td>";
        assert_eq!(
            escaped_in_html(sass),
            "<td><code>CALL.REL.NOINC `(&#36;__internal_0_&#36;__slowpath)</code></td>"
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
