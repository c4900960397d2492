//! The stored evidence the pages use besides the examples' records, for
//! `mdbook-cuda status` and the `{{#status}}` page: Nsight Compute
//! profiles (`{{#profile}}`), SASS listings (`{{#sass}}`,
//! `{{#sass_count}}`), compute-sanitizer reports (`{{#sanitizer}}`),
//! host-program runs (`{{#host}}`, one file per language), the peers
//! comparisons (`{{#peers}}`), the repeatability report
//! (`{{#repeatability}}`) and the all-reduce reports (`{{#allreduce}}`,
//! `{{#allreduce_figure}}`). One row per stored file, with where the book
//! uses it, its date and tool, and its state.
//!
//! The state is never judged here but by [`crate::evidence_judge`]
//! (`Evidence::new`), which evaluates each directive as its page does.

use crate::artifacts::SESSION;
pub use crate::artifacts::{Kind, State};
use crate::chapter_links::link;
use crate::directives::Directive;
use crate::figures;

mod sections;
mod uses;
pub use sections::{section_anchors, section_at};
pub use uses::uses;

/// A directive of the book and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Use {
    /// The directive.
    pub directive: Directive,
    /// `src/ch.md:12`.
    pub place: String,
    /// Index of its chapter.
    pub chapter: usize,
    /// The `id` of the heading of the section it is in, if any.
    pub section: Option<String>,
}

/// One stored file on the status page.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Its kind.
    pub kind: Kind,
    /// Its path as messages show it (`results/sass/r/tree.json`).
    pub file: String,
    /// Its state: the worst of its uses.
    pub state: State,
    /// Why it is not current, as the build says it.
    pub reason: Option<String>,
    /// Where the book uses it, in reading order, each once.
    pub places: Vec<String>,
    /// The chapter of its first use.
    pub chapter: usize,
    /// The section of its first use.
    pub section: Option<String>,
    /// The link to that section from the status page, once
    /// [`Evidence::link_from`] has set it.
    pub href: Option<String>,
    /// The day it was made (`2026-05-01`).
    pub date: Option<String>,
    /// The tool that made it (`ncu 2025.3`).
    pub tool: Option<String>,
}

/// Every stored file the book's directives use, grouped by kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evidence {
    /// Rows by kind, then in reading order of first use.
    pub rows: Vec<Row>,
}

impl Evidence {
    /// Sets each row's link to the section that uses it, as seen from the
    /// chapter `page` (see [`crate::status_page::StatusPage::link_from`]).
    pub fn link_from(&mut self, chapters: &[&std::path::Path], page: &std::path::Path) {
        for row in &mut self.rows {
            row.href = chapters
                .get(row.chapter)
                .map(|c| link(c, page, row.section.as_deref()));
        }
    }

    /// `9 stored files: 6 current, 2 stale, 1 missing`.
    pub fn summary(&self) -> String {
        let states = [State::Current, State::Stale, State::Missing, State::Error];
        let counts: Vec<String> = states
            .iter()
            .filter_map(|s| {
                let n = self.rows.iter().filter(|r| r.state == *s).count();
                (n > 0).then(|| format!("{n} {}", s.word()))
            })
            .collect();
        let total = self.rows.len();
        let noun = if total == 1 { "file" } else { "files" };
        format!("{total} stored evidence {noun}: {}", counts.join(", "))
    }

    /// `run scripts/sass; on a GPU machine, bench/gpu-session.sh OUTDIR
    /// profile|host; on a machine with 2 GPUs, cuda-runner allreduce
    /// --gpus 2`: what makes the rows that are not current, or `None`.
    pub fn remedy(&self) -> Option<String> {
        let mut kinds: Vec<Kind> = self
            .rows
            .iter()
            .filter(|r| matches!(r.state, State::Stale | State::Missing))
            .map(|r| r.kind)
            .collect();
        kinds.dedup();
        let local: Vec<String> = kinds
            .iter()
            .filter(|k| !k.needs_gpu())
            .map(|k| k.command())
            .collect();
        let commands: Vec<String> = kinds.iter().map(|k| k.command()).collect();
        let gpu: Vec<&str> = commands
            .iter()
            .filter_map(|c| c.strip_prefix(SESSION))
            .collect();
        let machines: Vec<String> = kinds
            .iter()
            .filter_map(|k| match k {
                Kind::Allreduce(gpus) => Some(format!(
                    "on a machine with {}, run {}",
                    figures::gpu_count(*gpus),
                    k.command()
                )),
                _ => None,
            })
            .collect();
        let mut parts = Vec::new();
        if !local.is_empty() {
            parts.push(format!("run {} (no GPU needed)", local.join(", ")));
        }
        if !gpu.is_empty() {
            parts.push(format!(
                "on a GPU machine, run bench/gpu-session.sh OUTDIR {}",
                gpu.join("|")
            ));
        }
        parts.extend(machines);
        (!parts.is_empty()).then(|| format!("To make them: {}.", parts.join("; ")))
    }
}

#[cfg(test)]
mod tests;
