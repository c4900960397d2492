//! How a directive is written, below every module that reads one: where
//! the `{{#name args}}` of a chapter are (outside code, not escaped), and
//! how a message names a directive's form. [`crate::directives`] parses
//! what these find; the catalog finds its `{{#exercise}}` stages with them,
//! and each artifact kind ([`crate::artifacts`]) words its arguments'
//! mistakes with [`usage`].

use crate::scan::{ChapterScan, LineIndex};
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{\s*#([A-Za-z0-9_]+)([^}]*)\}\}").expect("directive pattern compiles")
});

/// A `{{#name args}}` of a chapter, whoever's it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence<'a> {
    /// Bytes of `{{#...}}`.
    pub range: Range<usize>,
    /// 1-based line.
    pub line: usize,
    /// The directive as written.
    pub text: &'a str,
    /// Its name (`measured`).
    pub name: &'a str,
    /// Its arguments, split at whitespace.
    pub args: Vec<&'a str>,
}

/// Every `{{#name args}}` of `content` outside code (blocks or inline
/// spans) and not escaped by a `\` before it, in order.
pub fn occurrences<'a>(content: &'a str, scan: &ChapterScan) -> Vec<Occurrence<'a>> {
    let lines = LineIndex::new(content);
    let mut out = Vec::new();
    for caps in DIRECTIVE.captures_iter(content) {
        let whole = caps.get(0).expect("group 0 always matches");
        let escaped = content[..whole.start()].ends_with('\\');
        if escaped || scan.in_code(whole.start()) {
            continue;
        }
        out.push(Occurrence {
            range: whole.range(),
            line: lines.line_of(whole.start()),
            text: whole.as_str(),
            name: caps.get(1).expect("group 1 always matches").as_str(),
            args: caps
                .get(2)
                .map_or("", |m| m.as_str())
                .split_whitespace()
                .collect(),
        });
    }
    out
}

/// `` write `{{#form}}` (hint) ``: how to write a directive misused.
pub fn usage(form: &str, hint: &str) -> String {
    format!("write `{{{{#{form}}}}}` ({hint})")
}

/// The name in a directive's form: `measured` in `{{#measured ID FIELD SIZE}}`.
pub fn form_name(form: &str) -> &str {
    let rest = form.trim_start_matches("{{#");
    rest.split([' ', '}']).next().unwrap_or(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::scan;

    // Every directive outside code is found with its name, arguments and
    // line, whoever's it is; escaped ones and those in code are not.
    #[test]
    fn occurrences_outside_code() {
        let text = "a {{#include x.rs}}\n{{ #peers  sum_f32 }} \\{{#gpu}} `{{#gpu}}`\n\n```\n{{#gpu}}\n```\n";
        let found = occurrences(text, &scan(text));
        let got: Vec<(&str, Vec<&str>, usize)> = found
            .iter()
            .map(|o| (o.name, o.args.clone(), o.line))
            .collect();
        assert_eq!(
            got,
            [("include", vec!["x.rs"], 1), ("peers", vec!["sum_f32"], 2)]
        );
        assert_eq!(found[1].text, "{{ #peers  sum_f32 }}");
        assert_eq!(&text[found[1].range.clone()], found[1].text);
        assert_eq!(form_name("{{#sass ID [KERNEL]}}"), "sass");
        assert_eq!(
            usage("gpu", "it takes no arguments"),
            "write `{{#gpu}}` (it takes no arguments)"
        );
    }
}
