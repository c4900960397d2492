//! Where the book's directives are: in its chapters, and in the texts of
//! the exercise stages its `{{#exercise}}` directives show (goal, what to
//! learn, lesson, hints, pitfalls), as the pass finds them.

use super::Use;
use crate::catalog::{Catalog, ChapterText};
use crate::config::Settings;
use crate::directives;
use crate::scan::{self, LineIndex};
use cuda_measured_core::exercise::Text;

/// Every directive the book's pages show that reads without error, with
/// its place and the section of the chapter it shows in: a stage's
/// directives are placed in the stage's file and shown in the section of
/// the chapter's `{{#exercise}}`.
pub fn uses(settings: &Settings, catalog: &Catalog, chapters: &[ChapterText]) -> Vec<Use> {
    let mut out = Vec::new();
    for (index, chapter) in chapters.iter().enumerate() {
        let Some(scan) = catalog.chapters.get(index) else {
            continue;
        };
        let sections = super::section_anchors(&chapter.content, scan);
        for found in directives::find(&chapter.content, scan) {
            if let Ok(directive) = found.parsed {
                out.push(Use {
                    directive,
                    place: chapter.place_at(settings, found.range.start),
                    chapter: index,
                    section: super::section_at(&sections, found.line),
                });
            }
        }
        let lines = LineIndex::new(&chapter.content);
        for slot in catalog.exercises.iter().filter(|s| s.chapter == index) {
            let Ok(kernels) = &slot.stage else {
                continue;
            };
            let stage = &kernels.stage;
            let section = super::section_at(&sections, lines.line_of(slot.range.start));
            let texts = [&stage.goal, &stage.lesson]
                .into_iter()
                .chain(&stage.learn)
                .chain(&stage.hints)
                .chain(stage.pitfalls.iter().map(|p| &p.text));
            for text in texts {
                out.extend(in_text(text, &stage.file, index, &section));
            }
        }
    }
    out
}

/// The directives of a stage's text, placed in `file`.
fn in_text(text: &Text, file: &str, chapter: usize, section: &Option<String>) -> Vec<Use> {
    directives::find(&text.text, &scan::scan(&text.text))
        .into_iter()
        .filter_map(|found| {
            Some(Use {
                directive: found.parsed.ok()?,
                place: format!("{file}:{}", text.line + found.line - 1),
                chapter,
                section: section.clone(),
            })
        })
        .collect()
}
