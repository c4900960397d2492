//! The sections of a chapter: the `id` mdBook gives each ATX heading
//! (`## The tree, in shared memory` → `the-tree-in-shared-memory`, a
//! repeated one `-1`, `-2`; `{#id}` as written), so that a row of the
//! status page can link to the section holding a directive.

use crate::scan::{ChapterScan, LineIndex};
use std::collections::HashMap;

/// Each heading's line (1-based) and `id`, in order, outside code.
pub fn section_anchors(content: &str, scan: &ChapterScan) -> Vec<(usize, String)> {
    let lines = LineIndex::new(content);
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    let mut offset = 0;
    for line in content.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if scan.in_code(start) {
            continue;
        }
        let Some(id) = heading_id(line.trim_end()) else {
            continue;
        };
        let n = counts.entry(id.clone()).or_insert(0);
        let unique = if *n == 0 { id } else { format!("{id}-{n}") };
        *n += 1;
        out.push((lines.line_of(start), unique));
    }
    out
}

/// The `id` of the section holding `line`: the last heading before it.
pub fn section_at(anchors: &[(usize, String)], line: usize) -> Option<String> {
    anchors
        .iter()
        .take_while(|(at, _)| *at <= line)
        .last()
        .map(|(_, id)| id.clone())
}

/// The `id` of an ATX heading line (up to three spaces, one to six `#`,
/// a space), or `None` for any other line.
fn heading_id(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    if indent > 3 || !(1..=6).contains(&hashes) {
        return None;
    }
    let text = rest[hashes..].strip_prefix([' ', '\t'])?.trim();
    let text = text.trim_end_matches('#').trim_end();
    if let Some(open) = text.rfind("{#").filter(|_| text.ends_with('}')) {
        let attrs = &text[open + 2..text.len() - 1];
        let id = attrs.split_whitespace().next().unwrap_or_default();
        if !id.is_empty() {
            return Some(id.to_string());
        }
    }
    Some(normalize(&plain(text)))
}

/// A heading's text as the reader sees it: links' text without their
/// targets, without code marks, emphasis stars or HTML tags.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut in_tag = false;
    while let Some(c) = chars.next() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            ']' if chars.peek() == Some(&'(') => {
                for c in chars.by_ref() {
                    if c == ')' {
                        break;
                    }
                }
            }
            '`' | '*' | '[' | ']' => {}
            c => out.push(c),
        }
    }
    out
}

/// mdBook's `normalize_id`: letters, digits, `_` and `-` lowercased,
/// whitespace as `-`, nothing else.
fn normalize(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Headings get mdBook's ids, repeats numbered, code left out.
    #[test]
    fn heading_ids() {
        let text = "# Sums\n\nx\n\n## The `tree`, in [shared](a.md) memory\n\n```\n# not\n```\n\n## Sums\n### Named {#own}\n#nope\n";
        let anchors = section_anchors(text, &crate::scan::scan(text));
        assert_eq!(
            anchors,
            [
                (1, "sums".to_string()),
                (5, "the-tree-in-shared-memory".to_string()),
                (11, "sums-1".to_string()),
                (12, "own".to_string()),
            ]
        );
        assert_eq!(section_at(&anchors, 3).as_deref(), Some("sums"));
        assert_eq!(section_at(&anchors, 11).as_deref(), Some("sums-1"));
        assert_eq!(section_at(&anchors[1..], 3), None);
    }
}
