//! Reads a book from disk without mdBook: book.toml, and the chapters
//! SUMMARY.md lists, for the `check` and `status` subcommands. The
//! chapters' `{{#include}}`s are expanded as mdBook's `links` preprocessor expands
//! them in a build ([`crate::source_map`]), so these commands see the
//! text a build sees and place it at the lines of the files written.

use crate::catalog::ChapterText;
use anyhow::Context;
use mdbook_preprocessor::config::Config;
use mdbook_summary::{Summary, SummaryItem};
use std::path::{Path, PathBuf};

/// A book on disk.
#[derive(Debug, Clone)]
pub struct BookOnDisk {
    /// The book root.
    pub root: PathBuf,
    /// Its book.toml (defaults when there is none), with `MDBOOK_*`
    /// environment overrides applied as mdBook applies them.
    pub config: Config,
    /// Its chapters, in SUMMARY.md order.
    pub chapters: Vec<ChapterText>,
}

/// Loads the book rooted at `root`.
pub fn load(root: &Path) -> anyhow::Result<BookOnDisk> {
    let root = root
        .canonicalize()
        .with_context(|| format!("no book at {}", root.display()))?;
    let toml_path = root.join("book.toml");
    let mut config = if toml_path.is_file() {
        Config::from_disk(&toml_path)?
    } else {
        Config::default()
    };
    config.update_from_env()?;
    let src = root.join(&config.book.src);
    let summary_path = src.join("SUMMARY.md");
    let summary_text = std::fs::read_to_string(&summary_path)
        .with_context(|| format!("cannot read {}", summary_path.display()))?;
    let summary = mdbook_summary::parse_summary(&summary_text)
        .with_context(|| format!("cannot parse {}", summary_path.display()))?;
    let mut chapters = Vec::new();
    for location in chapter_paths(&summary) {
        let path = src.join(&location);
        let chapter = ChapterText::read(location, &src)
            .with_context(|| format!("cannot read chapter {}", path.display()))?;
        chapters.push(chapter);
    }
    Ok(BookOnDisk {
        root,
        config,
        chapters,
    })
}

/// Chapter files of a summary in reading order; drafts have none.
fn chapter_paths(summary: &Summary) -> Vec<PathBuf> {
    fn walk(items: &[SummaryItem], out: &mut Vec<PathBuf>) {
        for item in items {
            if let SummaryItem::Link(link) = item {
                if let Some(location) = &link.location {
                    out.push(location.clone());
                }
                walk(&link.nested_items, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&summary.prefix_chapters, &mut out);
    walk(&summary.numbered_chapters, &mut out);
    walk(&summary.suffix_chapters, &mut out);
    out
}

/// Every file under `dir` (recursively) whose extension is `ext`, sorted.
pub fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Chapters come in SUMMARY order, nested ones after their parent, drafts skipped.
    #[test]
    fn chapters_in_summary_order() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("part")).unwrap();
        std::fs::write(
            src.join("SUMMARY.md"),
            "# Summary\n\n[Intro](intro.md)\n\n- [A](part/a.md)\n  - [B](part/b.md)\n- [Draft]()\n",
        )
        .unwrap();
        for (name, text) in [("intro.md", "i"), ("part/a.md", "a"), ("part/b.md", "b")] {
            std::fs::write(src.join(name), text).unwrap();
        }
        let book = load(dir.path()).unwrap();
        let names: Vec<String> = book
            .chapters
            .iter()
            .map(|c| format!("{}={}", c.source_path.display(), c.content))
            .collect();
        assert_eq!(names, ["intro.md=i", "part/a.md=a", "part/b.md=b"]);
    }

    // A chapter's includes are expanded as in a build, and its text placed
    // at the lines of the files written.
    #[test]
    fn includes_are_expanded_and_placed() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("part")).unwrap();
        std::fs::write(src.join("SUMMARY.md"), "- [A](part/a.md)\n").unwrap();
        std::fs::write(src.join("part/a.md"), "x\n{{#include b.txt}}\ny\n").unwrap();
        std::fs::write(src.join("part/b.txt"), "1\n2\n3\n").unwrap();
        let book = load(dir.path()).unwrap();
        let chapter = &book.chapters[0];
        assert_eq!(chapter.content, "x\n1\n2\n3\ny\n");
        let y = chapter.sources.place(chapter.content.find('y').unwrap());
        assert_eq!((y.file, y.line), (None, 3));
        let two = chapter.sources.place(chapter.content.find('2').unwrap());
        assert_eq!(two.line, 2);
        assert!(two.file.unwrap().ends_with("part/b.txt"));
    }
}
