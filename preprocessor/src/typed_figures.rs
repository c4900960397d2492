//! Figures typed into prose: a time (`4.4 µs`), a bandwidth (`4503
//! GB/s`), a rate (`51 TFLOP/s`), a percentage (`83.5%`) or a speed-up
//! (`2.33x`) written by hand in a chapter or in a stage file's text, where
//! the book's figures come from directives over the store. `mdbook-cuda
//! check` reports each at its file and line (AUTHORING.md §4).
//!
//! What is not prose is never read: code blocks and spans, directives
//! (every `{{#...}}`, whoever's), link targets, HTML tags and comments. A
//! figure of others is marked as quoted with its source, inline as
//! `{{#quote SOURCE | TEXT}}` (rendered as TEXT with a link to SOURCE), or
//! for a whole paragraph, list or table by a line `<!-- quoted from
//! SOURCE -->` just before it (up to the next blank line), SOURCE a URL or
//! a file of the book's repository (for the method's own settings, the
//! code that sets them: `runner/core/src/method.rs`), which must exist.
//!
//! The patterns, a number then its unit (`2^22`, `256 threads`, `32
//! lanes`, `16 MiB` have none of these units):
//!
//! - time: `µs`, `us`, `ms`, `ns`, with or without a space;
//! - bandwidth: `B/s` with a prefix (`GB/s`, `TB/s`, `GiB/s`);
//! - rate: `FLOP/s` with a prefix, `elements/s`;
//! - percentage: `%`;
//! - speed-up: `x` or `×` written against the number and not followed by
//!   another number (`2.33x`, `1.9×`, but not `256 × 4` or `32x32`), or a
//!   number with decimals before `times` (`2.33 times`, not `16 times`).

use crate::catalog::{Catalog, ChapterText};
use crate::config::Settings;
use crate::directive_syntax::occurrences;
use crate::scan::{ChapterScan, LineIndex, scan};
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// A number and a unit that reads as measured.
static FIGURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?P<num>\d+(?:[.,]\d+)*)",
        r"(?:(?P<spaced>[ \u{a0}]?)(?P<unit>µs|us|ms|ns|[KMGT]i?B/s|[KMGT]?FLOP/s|elements/s|%)",
        r"|(?P<times>[x×])|(?P<words> times\b))",
    ))
    .expect("figure pattern compiles")
});

/// Link targets, HTML comments and tags: never prose.
static NOT_PROSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)\]\([^)]*\)|<!--.*?-->|</?[A-Za-z][^>\n]*>|<https?://[^>\s]*>")
        .expect("pattern compiles")
});

/// A line marking the block after it as quoted, and its source.
static QUOTED_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*<!--\s*quoted from\s+(\S+)\s*-->\s*$").expect("pattern compiles")
});

/// The source of each block marking of `text` that names neither a URL
/// nor a file `exists` knows, with its 1-based line.
pub fn unknown_sources(text: &str, exists: &dyn Fn(&str) -> bool) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let source = QUOTED_BLOCK.captures(line)?.get(1)?.as_str();
            let url = source.starts_with("https://") || source.starts_with("http://");
            (!url && !exists(source)).then(|| (i + 1, source.to_string()))
        })
        .collect()
}

/// A figure typed into prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typed {
    /// Bytes of the figure in the text.
    pub range: Range<usize>,
    /// 1-based line in the text.
    pub line: usize,
    /// The figure as written (`4.4 µs`).
    pub figure: String,
    /// What it reads as: `time`, `bandwidth`, `rate`, `percentage`, `speed-up`.
    pub kind: &'static str,
}

impl Typed {
    /// What to write instead, for the message.
    pub fn fix(&self) -> String {
        let directive = match self.kind {
            "time" => "{{#measured ID time SIZE}}",
            "bandwidth" => "{{#measured ID gbs SIZE}} or {{#ceiling ID read}}",
            "rate" => "{{#measured ID tflops SIZE}} (or the rate's field)",
            "percentage" => {
                "{{#measured ID pct_ceiling SIZE}}, {{#profile ID METRIC SIZE}} or {{#repeatability}}"
            }
            _ => "{{#ratio ID_A ID_B SIZE}}",
        };
        format!(
            "`{}` is a {} typed by hand: write it with {directive} over the store, or, if it is another's figure, mark it quoted with its source: {{{{#quote SOURCE | {}}}}} (AUTHORING.md §4)",
            self.figure, self.kind, self.figure
        )
    }
}

/// Every typed figure of markdown `text` whose code `scan` found.
pub fn find(text: &str, scan: &ChapterScan) -> Vec<Typed> {
    let mut hidden = vec![false; text.len() + 1];
    let mut hide = |r: Range<usize>| hidden[r].iter_mut().for_each(|h| *h = true);
    for o in occurrences(text, scan) {
        hide(o.range);
    }
    for m in NOT_PROSE.find_iter(text) {
        hide(m.range());
    }
    // A marked block: from its marking line to the next blank line.
    let mut offset = 0;
    let mut quoted_from: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let end = offset + line.len();
        if QUOTED_BLOCK.is_match(line.trim_end_matches('\n')) {
            quoted_from = Some(offset);
        } else if line.trim().is_empty()
            && let Some(start) = quoted_from.take()
        {
            hide(start..end);
        }
        offset = end;
    }
    if let Some(start) = quoted_from {
        hide(start..text.len());
    }
    let lines = LineIndex::new(text);
    FIGURE
        .captures_iter(text)
        .filter_map(|caps| {
            let whole = caps.get(0)?;
            let num = caps.name("num")?;
            let start = whole.start();
            // Part of a longer token: `sm_90`, `v2.5x`, `0x1f`, `2^22%`.
            let before = text[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || "_.^/#-".contains(c)) {
                return None;
            }
            if scan.in_code(start) || hidden[start] || hidden[whole.end() - 1] {
                return None;
            }
            let after = &text[whole.end()..];
            let kind = if caps.name("words").is_some() {
                if !num.as_str().contains('.') {
                    return None;
                }
                "speed-up"
            } else if caps.name("times").is_some() {
                // `2.33x` but not `0x1f`, `32x32`, `4x4 tiles`, `256 × 4`.
                let next = after.chars().next();
                if next.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    || after.trim_start().starts_with(|c: char| c.is_ascii_digit())
                    || num.as_str() == "0"
                {
                    return None;
                }
                "speed-up"
            } else {
                let unit = caps.name("unit")?.as_str();
                if after
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() && unit != "%")
                {
                    return None;
                }
                match unit {
                    "µs" | "us" | "ms" | "ns" => "time",
                    "%" => "percentage",
                    u if u.ends_with("B/s") => "bandwidth",
                    _ => "rate",
                }
            };
            Some(Typed {
                range: whole.range(),
                line: lines.line_of(start),
                figure: whole.as_str().to_string(),
                kind,
            })
        })
        .collect()
}

/// Every typed figure of the book's chapters and of the text of the
/// stages its pages show, as `place: message` lines in reading order.
pub fn check(settings: &Settings, catalog: &Catalog, chapters: &[ChapterText]) -> Vec<String> {
    let mut out = Vec::new();
    let exists = |source: &str| !source.contains("..") && settings.root.join(source).exists();
    let marking = |place: String, source: &str| {
        format!(
            "{place}: `<!-- quoted from {source} -->` names neither a URL nor a file of the repository: write the URL the figures are quoted from, or the path (from the book's root) of the file that holds them"
        )
    };
    for (index, chapter) in chapters.iter().enumerate() {
        let Some(scan) = catalog.chapters.get(index) else {
            continue;
        };
        for (line, source) in unknown_sources(&chapter.content, &exists) {
            out.push(marking(
                chapter.origin_of_line(settings, line).to_string(),
                &source,
            ));
        }
        for typed in find(&chapter.content, scan) {
            // Text an include brought in is its own file's: code, mostly,
            // which is not prose.
            let place = chapter.place_at(settings, typed.range.start);
            if place.contains("(included at") {
                continue;
            }
            out.push(format!("{place}: {}", typed.fix()));
        }
    }
    // Pages under src/ that no chapter is (not in SUMMARY.md yet).
    let known: Vec<std::path::PathBuf> = chapters
        .iter()
        .map(|c| settings.src.join(&c.source_path))
        .collect();
    for path in crate::book_files::files_under(&settings.src, "md") {
        if known.contains(&path) || path.file_name().is_some_and(|n| n == "SUMMARY.md") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (line, source) in unknown_sources(&text, &exists) {
            out.push(marking(
                format!("{}:{line}", settings.shown(&path)),
                &source,
            ));
        }
        for typed in find(&text, &scan(&text)) {
            out.push(format!(
                "{}:{}: {}",
                settings.shown(&path),
                typed.line,
                typed.fix()
            ));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for slot in &catalog.exercises {
        let Ok(kernels) = &slot.stage else {
            continue;
        };
        let stage = &kernels.stage;
        if !seen.insert(stage.name.clone()) {
            continue;
        }
        let texts = std::iter::once(&stage.goal)
            .chain(&stage.learn)
            .chain(std::iter::once(&stage.lesson))
            .chain(&stage.hints)
            .chain(stage.pitfalls.iter().map(|p| &p.text));
        for text in texts {
            for typed in find(&text.text, &scan(&text.text)) {
                out.push(format!(
                    "{}:{}: {}",
                    stage.file,
                    text.line + typed.line - 1,
                    typed.fix()
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(text: &str) -> Vec<(usize, String, &'static str)> {
        find(text, &scan(text))
            .into_iter()
            .map(|t| (t.line, t.figure, t.kind))
            .collect()
    }

    // Each kind of measured-looking figure is found at its line; sizes,
    // counts, hardware facts, code, directives, link targets and marked
    // quotes are not.
    #[test]
    fn typed_figures_are_found_and_the_rest_is_not() {
        let text = "It takes 4.4 µs, or 12 us, 3 ms, 80ns.\n\
                    It reads 4503 GB/s (4.5 TB/s, 51 TFLOP/s) and 83.5% of the ceiling.\n\
                    A speed-up of 2.33x, or 1.9×, or 4.68 times; 16 times larger.\n\
                    N = 2^22 over 256 threads, 32 lanes, 16 MiB, 256 × 4 bytes, a 32x32 tile, 0x1f, sm_90.\n\
                    `4.4 µs` in code, {{#measured a time 2^22}}, [a link](https://x.org/4.4us).\n\
                    ```\nlet t = 4.4; // 5 ms\n```\n\
                    {{#quote https://x.org/slides | 8.054 ms}} from Harris.\n\
                    <!-- quoted from https://x.org/table -->\n\
                    | kernel | 8.054 ms | 2.33x |\n\
                    \n\
                    after the block, 2%.\n";
        assert_eq!(
            figures(text),
            [
                (1, "4.4 µs".to_string(), "time"),
                (1, "12 us".into(), "time"),
                (1, "3 ms".into(), "time"),
                (1, "80ns".into(), "time"),
                (2, "4503 GB/s".into(), "bandwidth"),
                (2, "4.5 TB/s".into(), "bandwidth"),
                (2, "51 TFLOP/s".into(), "rate"),
                (2, "83.5%".into(), "percentage"),
                (3, "2.33x".into(), "speed-up"),
                (3, "1.9×".into(), "speed-up"),
                (3, "4.68 times".into(), "speed-up"),
                (13, "2%".into(), "percentage"),
            ]
        );
        let known = |source: &str| source == "runner/core/src/method.rs";
        assert_eq!(
            unknown_sources(
                "<!-- quoted from runner/core/src/method.rs -->\n<!-- quoted from https://x.org -->\n<!-- quoted from nowhere.rs -->\n",
                &known
            ),
            [(3, "nowhere.rs".to_string())]
        );
        let fix = find("about 1% apart", &scan("about 1% apart"))[0].fix();
        assert!(
            fix.starts_with("`1%` is a percentage typed by hand"),
            "{fix}"
        );
        assert!(fix.contains("{{#quote SOURCE | 1%}}"), "{fix}");
    }
}
