//! The `{{#status}}` page: every example of the book, in reading order,
//! with its state (from [`Outcome::state`], the classification
//! `mdbook-cuda status` prints), the GPU and date of its record, a key
//! figure (the largest timed size's median time and GB/s, or the first
//! words of what went wrong) and a link to its panel. The rows are built
//! here from the book's settled outcomes; [`html`] and [`markdown`] lay them
//! out.

use crate::catalog::Catalog;
use crate::chapter_links::link;
use crate::evidence::Evidence;
use crate::figures;
use crate::outcome::{Outcome, State, status_words};
use cuda_measured_core::record::{Record, Status};
use std::collections::HashMap;
use std::path::Path;

mod render;
pub use render::{evidence_table, html, markdown, status_table};

/// Words of a message kept in the key figure; the whole message is its
/// tooltip.
const FIGURE_WORDS: usize = 10;

/// The page's rows and what they add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusPage {
    /// One row per example (its first listing), in reading order.
    pub rows: Vec<StatusRow>,
    /// The other stored evidence the book's directives use, set by the
    /// book's pass ([`crate::evidence`]).
    pub evidence: Evidence,
}

/// One example on the status page.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusRow {
    /// Its state.
    pub state: State,
    /// Its id as shown (`?` for a block whose id cannot be told).
    pub id: String,
    /// Where its block is: `src/reductions.md:12`.
    pub place: String,
    /// Index of its chapter among the book's chapters.
    pub chapter: usize,
    /// The `id` of its panel (`example-reductions/stride`), when the panel
    /// has one.
    pub anchor: Option<String>,
    /// The link to its panel from the status page, once
    /// [`StatusPage::link_from`] has set it.
    pub href: Option<String>,
    /// The GPU its record was measured on.
    pub gpu: Option<String>,
    /// The day its record was measured on (`2026-05-01`).
    pub date: Option<String>,
    /// `251.2 µs · 4275 GB/s at N = 2^28`, or the first words of a failure
    /// (`wrong: at N = 2^20 the sum is 1.0 …`); `—` when there is none.
    pub figure: String,
    /// The whole text the figure shortens, when it does.
    pub detail: Option<String>,
}

impl StatusPage {
    /// The rows of `catalog`'s examples, whose outcomes are `outcomes`
    /// (in catalog order).
    pub fn new(catalog: &Catalog, outcomes: &[Outcome]) -> Self {
        let anchors = panel_anchors(catalog);
        let rows = catalog
            .entries
            .iter()
            .zip(outcomes)
            .zip(anchors)
            .filter(|((entry, _), _)| entry.repeat_of.is_none())
            .map(|((entry, outcome), anchor)| {
                let record = record_of(outcome);
                let place = entry.place.to_string();
                let (figure, detail) = key_figure(outcome, &entry.place.file);
                StatusRow {
                    state: outcome.state(),
                    id: entry.shown_id(),
                    place,
                    chapter: entry.chapter,
                    anchor,
                    href: None,
                    gpu: record.map(|r| {
                        r.gpu
                            .as_ref()
                            .map_or_else(|| "no GPU".to_string(), |g| g.name.clone())
                    }),
                    date: record.map(|r| figures::date(&r.measured_at).to_string()),
                    figure,
                    detail,
                }
            })
            .collect();
        StatusPage {
            rows,
            evidence: Evidence::default(),
        }
    }

    /// Sets each row's link to its panel, as seen from the chapter `page`:
    /// `chapters` are the source paths of the book's chapters, relative to
    /// the chapters folder, in catalog order (`reductions.md`).
    pub fn link_from(&mut self, chapters: &[&Path], page: &Path) {
        for row in &mut self.rows {
            row.href = chapters
                .get(row.chapter)
                .map(|c| link(c, page, row.anchor.as_deref()));
        }
        self.evidence.link_from(chapters, page);
    }

    /// `7 examples: 5 current, 1 stale, 1 broken`: each state with at
    /// least one example, in [`State::ALL`]'s order.
    pub fn summary(&self) -> String {
        let counts: Vec<String> = State::ALL
            .iter()
            .filter_map(|state| {
                let n = self.rows.iter().filter(|r| r.state == *state).count();
                (n > 0).then(|| format!("{n} {}", state.word()))
            })
            .collect();
        let total = self.rows.len();
        let noun = if total == 1 { "example" } else { "examples" };
        if counts.is_empty() {
            format!("{total} {noun}")
        } else {
            format!("{total} {noun}: {}", counts.join(", "))
        }
    }
}

/// The `id` attribute of the panel of example `id`: `example-` and the id
/// as it is (`reductions/stride` → `example-reductions/stride`; HTML ids
/// and URL fragments may hold `/`), so that two examples never share an
/// anchor; a character an example id cannot hold (only a broken block's
/// shown name has them) becomes `-`.
pub fn anchor(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/') {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("example-{safe}")
}

/// The anchor of each entry's panel, in catalog order: every resolved
/// example's first listing has one (their ids are unique in the book); a
/// broken block has one when its id is known and no other block shows the
/// same id, so that no two panels share an anchor. Repeats show no panel.
pub fn panel_anchors(catalog: &Catalog) -> Vec<Option<String>> {
    let shown: Vec<String> = catalog.entries.iter().map(|e| e.shown_id()).collect();
    let mut uses: HashMap<String, usize> = HashMap::new();
    for (entry, id) in catalog.entries.iter().zip(&shown) {
        if entry.repeat_of.is_none() {
            *uses.entry(anchor(id)).or_default() += 1;
        }
    }
    catalog
        .entries
        .iter()
        .zip(&shown)
        .map(|(entry, id)| {
            let a = anchor(id);
            let alone = uses.get(&a) == Some(&1);
            match (&entry.resolved, entry.repeat_of) {
                (_, Some(_)) => None,
                (Ok(_), None) => Some(a),
                (Err(_), None) if id != "?" && alone => Some(a),
                (Err(_), None) => None,
            }
        })
        .collect()
}

/// The record an outcome holds, current or not.
fn record_of(outcome: &Outcome) -> Option<&Record> {
    match outcome {
        Outcome::Fresh(r) | Outcome::Stale(r) | Outcome::Unstored { record: r, .. } => Some(r),
        Outcome::Missing | Outcome::Broken(_) => None,
    }
}

/// The key figure of an outcome and, when it shortens a message, the
/// whole message. `file` is the chapter the block is in, whose place a
/// broken example's message starts with (the row shows it already).
fn key_figure(outcome: &Outcome, file: &str) -> (String, Option<String>) {
    match outcome {
        Outcome::Missing => ("—".into(), None),
        Outcome::Broken(message) => first_words(without_place(message, file)),
        Outcome::Fresh(r) | Outcome::Stale(r) | Outcome::Unstored { record: r, .. } => {
            record_figure(r)
        }
    }
}

/// A passing record's largest timed size (median and its primary figure:
/// GB/s, TFLOP/s or ns per access), or a failing
/// one's status and the first words of its message.
fn record_figure(r: &Record) -> (String, Option<String>) {
    if r.status != Status::Pass {
        let status = status_words(r.status);
        if r.message.trim().is_empty() {
            return (status, None);
        }
        let (words, whole) = first_words(&r.message);
        // `wrong at n = 2^26: …` names its status already.
        if r.message.to_lowercase().starts_with(&status) {
            return (words, whole);
        }
        return (
            format!("{status}: {words}"),
            whole.map(|w| format!("{status}: {w}")),
        );
    }
    match r.sizes.iter().max_by_key(|s| s.n) {
        Some(s) => (
            format!(
                "{} · {} at {}{}",
                figures::time_us(s.median_us),
                primary_figure(s),
                s.sweep
                    .as_ref()
                    .map(|v| format!("{v}, "))
                    .unwrap_or_default(),
                s.size().words()
            ),
            None,
        ),
        None => ("—".into(), None),
    }
}

/// A size's primary figure with its unit (`4275 GB/s`, `51.2 TFLOP/s`,
/// `612.3 ns` per access).
pub fn primary_figure(s: &cuda_measured_core::record::SizeResult) -> String {
    let name = cuda_measured_core::figures::primary(s);
    match cuda_measured_core::figures::value(s, name) {
        Some(v) if name == "ns_per_access" => format!("{} per access", figures::named(name, v)),
        Some(v) => figures::named(name, v),
        None => format!("no {name}"),
    }
}

/// `message` without the leading `FILE:LINE: ` of its block.
fn without_place<'a>(message: &'a str, file: &str) -> &'a str {
    let Some(rest) = message.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
        return message;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match rest[digits..].strip_prefix(": ") {
        Some(after) if digits > 0 => after,
        _ => message,
    }
}

/// The first [`FIGURE_WORDS`] words of `text` on one line, with `…` when
/// there were more, and then the whole text on one line.
fn first_words(text: &str) -> (String, Option<String>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= FIGURE_WORDS {
        return (words.join(" "), None);
    }
    (
        format!("{} …", words[..FIGURE_WORDS].join(" ")),
        Some(words.join(" ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chapter_links::{relative_link, rendered};
    use crate::test_support::{KERNEL, chapter, record, settings_in};
    use cuda_measured_core::declaration::Expectation;

    // Each state gets its row: a figure from the largest timed size, the
    // first words of a failure (whole in the tooltip), the message of a
    // broken block without its place, nothing for a missing record; a
    // repeat is not listed again.
    #[test]
    fn rows_of_every_state() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let inline = |id: &str| format!("```cuda run id={id}\n{KERNEL}```\n\n");
        let text = format!(
            "```cuda run file=r/tree.cu\n```\n\n```cuda run file=r/tree.cu anchor=body\n```\n\n{}{}{}```cuda run file=r/nope.cu\n```\n",
            inline("wrong"),
            inline("old"),
            inline("new"),
        );
        let catalog = Catalog::build(&settings, &[chapter("part/ch.md", &text)]);
        let pass = record(Status::Pass, Expectation::Pass);
        let mut fault = record(Status::Fault, Expectation::Pass);
        fault.message = "Fault at n = 1: an illegal memory access".into();
        assert_eq!(
            record_figure(&fault),
            ("Fault at n = 1: an illegal memory access".to_string(), None)
        );
        let mut wrong = record(Status::Wrong, Expectation::Pass);
        wrong.message =
            "at N = 2^20 the sum is 1.0 but the reference is 524288.3: threads overwrite each other"
                .into();
        let broken = catalog.entries[5].resolved.clone().unwrap_err().to_string();
        let outcomes = vec![
            Outcome::Fresh(pass.clone()),
            Outcome::Fresh(pass.clone()),
            Outcome::Fresh(wrong),
            Outcome::Stale(pass),
            Outcome::Missing,
            Outcome::Broken(broken),
        ];
        let page = StatusPage::new(&catalog, &outcomes);
        let rows: Vec<(State, &str, &str, &str, Option<&str>)> = page
            .rows
            .iter()
            .map(|r| {
                (
                    r.state,
                    r.id.as_str(),
                    r.place.as_str(),
                    r.figure.as_str(),
                    r.date.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (
                    State::Current,
                    "r/tree",
                    "src/part/ch.md:1",
                    "251.2 µs · 4275 GB/s at N = 2^28",
                    Some("2026-05-01")
                ),
                (
                    State::Failed,
                    "wrong",
                    "src/part/ch.md:7",
                    "wrong: at N = 2^20 the sum is 1.0 but the …",
                    Some("2026-05-01")
                ),
                (
                    State::Stale,
                    "old",
                    "src/part/ch.md:22",
                    "251.2 µs · 4275 GB/s at N = 2^28",
                    Some("2026-05-01")
                ),
                (State::NotMeasured, "new", "src/part/ch.md:37", "—", None),
                (
                    State::Broken,
                    "r/nope",
                    "src/part/ch.md:52",
                    "kernels/r/nope.cu:1: cannot read the kernel file (No such file or …",
                    None
                ),
            ]
        );
        assert_eq!(
            page.rows[1].detail.as_deref(),
            Some(
                "wrong: at N = 2^20 the sum is 1.0 but the reference is 524288.3: threads overwrite each other"
            )
        );
        assert_eq!(page.rows[0].gpu.as_deref(), Some("NVIDIA H200"));
        assert_eq!(
            page.summary(),
            "5 examples: 1 current, 1 failed, 1 stale, 1 not measured, 1 broken"
        );
    }

    // Panels get unique anchors: a broken block shares none with another
    // block, and one whose id cannot be told has none.
    #[test]
    fn anchors_are_unique() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let text = format!(
            "```cuda run id=twice\n{KERNEL}```\n\n```cuda run id=twice\n{}```\n\n```cuda run\n{KERNEL}```\n\n```cuda run file=r/gone.cu\n```\n",
            KERNEL.replace("tree", "other")
        );
        let catalog = Catalog::build(&settings, &[chapter("ch.md", &text)]);
        assert_eq!(
            panel_anchors(&catalog),
            [
                Some("example-twice".to_string()),
                None,
                None,
                Some("example-r/gone".to_string()),
            ]
        );
        assert_eq!(
            anchor("reductions/fast_reduce"),
            "example-reductions/fast_reduce"
        );
        // Ids that differ keep different anchors.
        assert_ne!(anchor("a/b"), anchor("a-b"));
        assert_eq!(anchor("a b#c"), "example-a-b-c");
    }

    // Links lead from the status page to each chapter, wherever both are.
    #[test]
    fn links_from_the_status_page() {
        let cases = [
            ("status.md", "reductions.html", "reductions.html"),
            ("status.md", "part/ch.html", "part/ch.html"),
            ("part/status.md", "reductions.html", "../reductions.html"),
            ("part/status.md", "part/ch.html", "ch.html"),
            ("a/b/status.md", "a/c/ch.html", "../c/ch.html"),
        ];
        for (from, to, want) in cases {
            assert_eq!(relative_link(Path::new(from), Path::new(to)), want);
        }
        let (_dir, settings) = settings_in(&[]);
        let text = format!("```cuda run id=r/a\n{KERNEL}```\n");
        let catalog = Catalog::build(
            &settings,
            &[
                chapter("ch.md", &text),
                chapter("status.md", &text.replace("r/a", "b")),
            ],
        );
        let mut page = StatusPage::new(&catalog, &[Outcome::Missing, Outcome::Missing]);
        page.link_from(
            &[Path::new("part/ch.md"), Path::new("status.md")],
            Path::new("status.md"),
        );
        let hrefs: Vec<Option<&str>> = page.rows.iter().map(|r| r.href.as_deref()).collect();
        assert_eq!(
            hrefs,
            [Some("part/ch.html#example-r/a"), Some("#example-b")]
        );
    }

    // A README chapter is rendered as index.html, so its links go there.
    #[test]
    fn readme_chapters_link_to_index() {
        assert_eq!(
            rendered(std::path::Path::new("part/README.md")),
            std::path::Path::new("part/index.html")
        );
        assert_eq!(
            rendered(std::path::Path::new("ch.md")),
            std::path::Path::new("ch.html")
        );
    }
}
