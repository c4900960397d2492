//! What the Run service can run: every example of the book and every
//! exercise stage, found as the book build finds them (mdbook-cuda's
//! [`Catalog`], read from book.toml and SUMMARY.md), each with the text of
//! the file it was resolved from and the region of it the page shows, so
//! that a reader's edit of that region can be spliced back in
//! ([`super::splice`]).

use anyhow::{Context, Result};
use cuda_measured_core::exercise::Stage;
use cuda_runner::example::{Example, ExampleError};
use mdbook_cuda::catalog::{Catalog, ChapterText};
use mdbook_cuda::config::Settings;
use mdbook_cuda::scan::RunSpec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a runnable's text came from, to build it again from an edit.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A file under the kernels folder.
    File {
        /// Relative to the kernels folder.
        rel_path: String,
        /// The anchor the page shows, if any.
        anchor: Option<String>,
    },
    /// A block written in a chapter.
    Inline {
        /// The chapter file as messages name it (`src/ch.md`).
        chapter_file: String,
        /// The chapter's folder, where its includes resolve.
        chapter_dir: PathBuf,
        /// 1-based line of the block's first line in the chapter file.
        body_line: usize,
    },
}

/// One thing a reader can run.
#[derive(Debug, Clone)]
pub struct Runnable {
    /// The book's example, as the build resolved it.
    pub example: Example,
    /// The text it was resolved from (the kernel file, or the block).
    pub text: String,
    /// Where it came from.
    pub origin: Origin,
    /// The stage, for an exercise stage's starter.
    pub stage: Option<Stage>,
    /// For a stage (which runs under its solution's header): the starter,
    /// under whose header a text that defines the starter's kernels and not
    /// the solution's runs instead (Run on the unchanged starter measures
    /// the starter, which the stage's gates then fail).
    pub starter: Option<Box<Runnable>>,
}

impl Runnable {
    /// The anchor the page shows (`None`: the whole text without its
    /// header).
    pub fn anchor(&self) -> Option<&str> {
        match &self.origin {
            Origin::File { anchor, .. } => anchor.as_deref(),
            Origin::Inline { .. } => None,
        }
    }

    /// The example made of `text` in place of the book's text, resolved as
    /// the book's own was (same file name, includes, id).
    pub fn rebuild(&self, book: &Book, text: &str) -> Result<Example, ExampleError> {
        let example = match &self.origin {
            Origin::File { rel_path, anchor } => Example::from_text(
                &book.root,
                &book.kernels,
                rel_path,
                text,
                anchor.as_deref(),
                Some(&self.example.id),
            ),
            Origin::Inline {
                chapter_file,
                chapter_dir,
                body_line,
            } => Example::from_inline(
                &book.kernels,
                chapter_file,
                chapter_dir,
                text,
                *body_line,
                &self.example.id,
            ),
        }?;
        Ok(example)
    }
}

/// The book the service serves.
#[derive(Debug)]
pub struct Book {
    /// Its root folder (canonical).
    pub root: PathBuf,
    /// Its kernels folder.
    pub kernels: PathBuf,
    /// Its results store.
    pub results: PathBuf,
    /// Examples by id, each as its first block shows it; an id shown again
    /// under another anchor is also under `ID#ANCHOR`.
    pub examples: BTreeMap<String, Runnable>,
    /// Exercise stages by name (`reduction/stage2`): their starter.
    pub stages: BTreeMap<String, Runnable>,
    /// The book's examples as the build lists them.
    pub catalog: Catalog,
    /// Their stored outcomes, in catalog order (what the gates compare
    /// the reader's kernel with).
    pub outcomes: Vec<mdbook_cuda::outcome::Outcome>,
    /// The stored reports (profiles, SASS listings, peers).
    pub stored: mdbook_cuda::stored::StoredReports,
}

impl Book {
    /// Reads the book at `root` as `mdbook-cuda check` does.
    pub fn load(root: &Path) -> Result<Book> {
        let disk = mdbook_cuda::book_files::load(root)?;
        let mut settings = Settings::load(&disk.root, &disk.config, |k| std::env::var(k).ok())?;
        // The store as it is: nothing compiled or measured for the book.
        settings.mode = mdbook_cuda::config::Mode::Frozen;
        settings.compile = false;
        let catalog = Catalog::build(&settings, &disk.chapters);
        let mut quiet = std::io::sink();
        let compiled = mdbook_cuda::compile_step::compile_book(&catalog, &settings, &mut quiet);
        let mut unused = cuda_runner::session::IsolatedBench::new(
            settings.runner.clone(),
            cuda_runner::session::Config::default(),
        );
        let settled =
            mdbook_cuda::measure::settle(&catalog, &settings, &compiled, &mut unused, &mut quiet)
                .map_err(|e| anyhow::anyhow!("reading the book's results: {e}"))?;
        let stored = mdbook_cuda::stored::StoredReports::new(
            &settings.results,
            settings.shown(&settings.results),
        )
        .with_root(&settings.root);
        let mut book = Book {
            root: disk.root.clone(),
            kernels: settings.kernels.clone(),
            results: settings.results.clone(),
            examples: BTreeMap::new(),
            stages: BTreeMap::new(),
            catalog: Catalog::default(),
            outcomes: settled.outcomes,
            stored,
        };
        for entry in &catalog.entries {
            let Some(example) = entry.example() else {
                continue;
            };
            let Ok(spec) = &entry.block.spec else {
                continue;
            };
            let runnable = match spec {
                RunSpec::File { path, anchor, .. } => {
                    let file = settings.kernels.join(path);
                    let text = std::fs::read_to_string(&file)
                        .with_context(|| format!("reading {}", settings.shown(&file)))?;
                    Runnable {
                        example: example.clone(),
                        text: text.replace("\r\n", "\n"),
                        origin: Origin::File {
                            rel_path: path.clone(),
                            anchor: anchor.clone(),
                        },
                        stage: None,
                        starter: None,
                    }
                }
                RunSpec::Inline { .. } => {
                    let chapter: &ChapterText = &disk.chapters[entry.chapter];
                    let chapter_dir = settings
                        .src
                        .join(chapter.source_path.parent().unwrap_or(Path::new("")));
                    Runnable {
                        example: example.clone(),
                        text: entry.block.body.replace("\r\n", "\n"),
                        origin: Origin::Inline {
                            chapter_file: example.origin.file.clone(),
                            chapter_dir,
                            body_line: example.origin.line,
                        },
                        stage: None,
                        starter: None,
                    }
                }
            };
            let id = example.id.clone();
            match (entry.repeat_of, runnable.anchor()) {
                (None, _) => {
                    book.examples.entry(id).or_insert(runnable);
                }
                (Some(_), Some(anchor)) => {
                    book.examples
                        .entry(format!("{id}#{anchor}"))
                        .or_insert(runnable);
                }
                (Some(_), None) => {}
            }
        }
        for slot in &catalog.exercises {
            let Ok(kernels) = &slot.stage else {
                continue;
            };
            // The editor shows the starter, but the reader's kernel is the
            // stage's answer: it runs under the solution's header (its launch
            // plan, which a stage often changes: stage 2 launches 16,384
            // blocks where its starter launched one thread), and is judged in
            // the solution's place. The region spliced is the starter's
            // anchor when the solution has the same one, else the whole body.
            let (Some(starter), Some(solution)) = (
                catalog.entries[kernels.starter].example(),
                catalog.entries[kernels.solution].example(),
            ) else {
                continue;
            };
            let (Some(shown), Some(answer)) = (
                book.examples.get(&starter.id),
                book.examples.get(&solution.id),
            ) else {
                continue;
            };
            let mut runnable = answer.clone();
            if let Origin::File { anchor, .. } = &mut runnable.origin {
                *anchor = shown
                    .anchor()
                    .filter(|a| {
                        cuda_runner::source::shown_lines(&runnable.text, Some(a), "").is_ok()
                    })
                    .map(str::to_owned);
            }
            runnable.stage = Some(kernels.stage.clone());
            let mut starter = shown.clone();
            starter.stage = Some(kernels.stage.clone());
            runnable.starter = Some(Box::new(starter));
            book.stages
                .entry(kernels.stage.name.clone())
                .or_insert(runnable);
        }
        book.catalog = catalog;
        Ok(book)
    }

    /// The example `id`, or the ids closest to it.
    pub fn example(&self, id: &str) -> Result<&Runnable, Vec<String>> {
        self.examples
            .get(id)
            .ok_or_else(|| closest(id, self.examples.keys()))
    }

    /// The stage `name`, or the names closest to it.
    pub fn stage(&self, name: &str) -> Result<&Runnable, Vec<String>> {
        self.stages
            .get(name)
            .ok_or_else(|| closest(name, self.stages.keys()))
    }
}

/// The (at most three) candidates nearest `word`, nearest first.
pub fn closest<'a>(word: &str, candidates: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = candidates
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, c)| c.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The nearest ids come first, at most three, a typo's id before the
    // rest.
    #[test]
    fn closest_ids_put_the_typo_first() {
        let ids: Vec<String> = [
            "reductions/tree",
            "reductions/two_pass",
            "vector-add/add",
            "x/y",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let near = closest("reductions/tre", ids.iter());
        assert_eq!(near.len(), 3);
        assert_eq!(near[0], "reductions/tree");
    }
}
