//! The book's runnable examples: every chapter scanned, every
//! `cuda run` block resolved into an [`Example`] with its key, its launch
//! plans checked against the target GPU's limits without one
//! ([`plan_check`]), ids checked for duplicates across the book. The
//! kernels an `{{#exercise}}` stage names are entries too ([`exercises`]),
//! so they are compiled, measured and listed like any example. Both the
//! preprocessor and the `check` and `status` subcommands start here.

mod error;
pub mod exercises;

use crate::config::Settings;
use crate::scan::{self, ChapterScan, RunBlock, RunSpec};
use crate::source_map::{Place, SourceMap};
use cuda_measured_core::example::{Example, Origin};
use cuda_measured_core::limits::KnownGpu;
use cuda_measured_core::plan_check;
use cuda_measured_core::store::Store;
pub use error::ResolveError;
use exercises::ExerciseSlot;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A chapter's markdown and where it lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChapterText {
    /// Path relative to the chapters folder (`reductions/intro.md`).
    pub source_path: PathBuf,
    /// The markdown, as mdBook hands it over (after `{{#include}}`).
    pub content: String,
    /// Where each byte of `content` was written.
    pub sources: SourceMap,
}

impl ChapterText {
    /// A chapter whose `content` is its file's text as written.
    pub fn new(source_path: PathBuf, content: String) -> ChapterText {
        let sources = SourceMap::identity(&content);
        ChapterText {
            source_path,
            content,
            sources,
        }
    }

    /// A chapter whose `content` mdBook made of its file under `src`
    /// (expanding its `{{#include}}`s), read again to place messages at the
    /// file's own lines; as written when the file cannot be read.
    pub fn expanded(source_path: PathBuf, content: String, src: &Path) -> ChapterText {
        let file = src.join(&source_path);
        let sources = match std::fs::read_to_string(&file) {
            Ok(raw) => {
                let dir = file.parent().unwrap_or(src);
                SourceMap::new(&raw, &content, dir)
            }
            Err(_) => SourceMap::identity(&content),
        };
        ChapterText {
            source_path,
            content,
            sources,
        }
    }

    /// The chapter in file `source_path` under `src`, its `{{#include}}`s
    /// expanded as mdBook expands them.
    pub fn read(source_path: PathBuf, src: &Path) -> std::io::Result<ChapterText> {
        let file = src.join(&source_path);
        let raw = std::fs::read_to_string(&file)?;
        let (content, sources) = SourceMap::expand(&raw, file.parent().unwrap_or(src));
        Ok(ChapterText {
            source_path,
            content,
            sources,
        })
    }

    /// Where byte `offset` of the content was written: the chapter file
    /// and its line, or the included file and its line.
    pub fn origin_at(&self, settings: &Settings, offset: usize) -> Origin {
        self.origin_of(settings, self.sources.place(offset))
    }

    /// Where line `line` of the content was written.
    pub fn origin_of_line(&self, settings: &Settings, line: usize) -> Origin {
        self.origin_of(settings, self.sources.place_of_line(line))
    }

    /// `src/ch.md:12`, or `kernels/x.md:3 (included at src/ch.md:12)`
    /// for text an include brought in: where byte `offset` was written,
    /// as messages name it.
    pub fn place_at(&self, settings: &Settings, offset: usize) -> String {
        let place = self.sources.place(offset);
        let included_at = place.included_at;
        let origin = self.origin_of(settings, place);
        match included_at {
            Some(line) => format!(
                "{origin} (included at {}:{line})",
                settings.shown(&settings.src.join(&self.source_path))
            ),
            None => origin.to_string(),
        }
    }

    fn origin_of(&self, settings: &Settings, place: Place) -> Origin {
        let file = match &place.file {
            Some(file) => settings.shown(file),
            None => settings.shown(&settings.src.join(&self.source_path)),
        };
        Origin {
            file,
            line: place.line,
        }
    }
}

/// A runnable block and what it resolved to.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Index of its chapter in [`Catalog::chapters`].
    pub chapter: usize,
    /// The block as found.
    pub block: RunBlock,
    /// Where the block is: the chapter file (relative to the book) and
    /// the line of its opening fence.
    pub place: Origin,
    /// The example and its key, or why it cannot be resolved (the message
    /// names file, line and fix).
    pub resolved: Result<Resolved, ResolveError>,
    /// When this block shows again an example listed earlier (the same
    /// kernel file with another anchor): that entry's index. The example is
    /// measured and reported once, under its first block.
    pub repeat_of: Option<usize>,
    /// When an `{{#exercise}}` stage names this kernel rather than a
    /// block: the index of that stage in [`Catalog::exercises`]. Its
    /// `block` is then the directive's place, and the stage shows it.
    pub exercise: Option<usize>,
}

impl Entry {
    /// The example, when resolved.
    pub fn example(&self) -> Option<&Example> {
        self.resolved.as_ref().ok().map(|r| &r.example)
    }

    /// The id the Run service knows this block's text by
    /// (`cuda-runner serve`, README "Run in the page"): the example's id at
    /// its first listing, `ID#ANCHOR` at a later listing of an anchor; none
    /// for a later listing of the whole file, which the service does not
    /// tell from the first, or for an example that did not resolve.
    pub fn run_id(&self) -> Option<String> {
        let example = self.example()?;
        match (self.repeat_of, &self.block.spec) {
            (None, _) => Some(example.id.clone()),
            (
                Some(_),
                Ok(RunSpec::File {
                    anchor: Some(anchor),
                    ..
                }),
            ) => Some(format!("{}#{anchor}", example.id)),
            (Some(_), _) => None,
        }
    }

    /// The id to show: the resolved one, else the one written, else `?`.
    pub fn shown_id(&self) -> String {
        if let Some(example) = self.example() {
            return example.id.clone();
        }
        match &self.block.spec {
            Ok(RunSpec::Inline { id }) => id.clone(),
            Ok(RunSpec::File { id: Some(id), .. }) => id.clone(),
            Ok(RunSpec::File { path, .. }) => {
                cuda_measured_core::example::default_id(path).to_string()
            }
            Err(_) => "?".into(),
        }
    }
}

/// A resolved example.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The example.
    pub example: Example,
    /// Its key in the results store.
    pub key: String,
}

/// All examples of a book, in reading order.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Scans of the chapters, in the order given.
    pub chapters: Vec<ChapterScan>,
    /// Runnable blocks of all chapters, in reading order, and the kernels
    /// of exercise stages where their directive is.
    pub entries: Vec<Entry>,
    /// The `{{#exercise}}` stages, in reading order.
    pub exercises: Vec<ExerciseSlot>,
    /// The entry of each example id's first listing.
    first_entry: HashMap<String, usize>,
}

impl Catalog {
    /// Scans and resolves the examples of `chapters`.
    pub fn build(settings: &Settings, chapters: &[ChapterText]) -> Catalog {
        let store = Store::new(&settings.results, KnownGpu::target().name);
        let mut catalog = Catalog::default();
        for (index, chapter) in chapters.iter().enumerate() {
            let chapter_scan = scan::scan(&chapter.content);
            for block in &chapter_scan.blocks {
                let place = chapter.origin_at(settings, block.range.start);
                let resolved = resolve(settings, &store, chapter, block, &place);
                catalog.push(index, block.clone(), place, resolved, None);
            }
            exercises::register(
                &mut catalog,
                settings,
                &store,
                index,
                chapter,
                &chapter_scan,
            );
            catalog.chapters.push(chapter_scan);
        }
        exercises::register_baselines(&mut catalog, settings, &store);
        catalog
    }

    /// Adds an entry for `block`, a repeat of an earlier listing of the
    /// same example, or an error when another example took its id.
    pub(crate) fn push(
        &mut self,
        chapter: usize,
        block: RunBlock,
        place: Origin,
        resolved: Result<Resolved, ResolveError>,
        exercise: Option<usize>,
    ) -> usize {
        let (resolved, repeat_of) = match resolved {
            Err(message) => (Err(message), None),
            Ok(r) => match self.first_listing(&r, &place) {
                Err(message) => (Err(message), None),
                Ok(first) => {
                    if first.is_none() {
                        self.first_entry
                            .insert(r.example.id.clone(), self.entries.len());
                    }
                    (Ok(r), first)
                }
            },
        };
        self.entries.push(Entry {
            chapter,
            block,
            place,
            resolved,
            repeat_of,
            exercise,
        });
        self.entries.len() - 1
    }

    /// The entry of a resolved example id (its first listing).
    pub fn by_id(&self, id: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.example().is_some_and(|ex| ex.id == id))
    }

    /// For an example whose id was listed before: the earlier entry when it
    /// is the same example (same source file, same key), an error naming
    /// both places when another example took the id.
    fn first_listing(
        &self,
        resolved: &Resolved,
        place: &Origin,
    ) -> Result<Option<usize>, ResolveError> {
        let id = &resolved.example.id;
        let Some(&first) = self.first_entry.get(id) else {
            return Ok(None);
        };
        let earlier = &self.entries[first];
        let same = earlier
            .resolved
            .as_ref()
            .is_ok_and(|e| e.key == resolved.key && e.example.origin == resolved.example.origin);
        if same {
            return Ok(Some(first));
        }
        Err(ResolveError::Duplicate {
            place: place.clone(),
            id: id.clone(),
            earlier: earlier.place.clone(),
        })
    }
}

fn resolve(
    settings: &Settings,
    store: &Store,
    chapter: &ChapterText,
    block: &RunBlock,
    place: &Origin,
) -> Result<Resolved, ResolveError> {
    let spec = block.spec.as_ref().map_err(|error| ResolveError::Block {
        place: place.clone(),
        error: error.clone(),
    })?;
    let example = match spec {
        RunSpec::Inline { id } => {
            let chapter_dir = settings.src.join(
                chapter
                    .source_path
                    .parent()
                    .unwrap_or(std::path::Path::new("")),
            );
            // Placed where its body was written (the chapter's own line,
            // or an included file's), for messages and `#line` markers.
            let body = chapter.origin_of_line(settings, block.body_line);
            Example::from_inline(
                &settings.kernels,
                &body.file,
                &chapter_dir,
                &block.body,
                body.line,
                id,
            )
        }
        RunSpec::File { path, anchor, id } => Example::from_file(
            &settings.root,
            &settings.kernels,
            path,
            anchor.as_deref(),
            id.as_deref(),
        ),
    }
    .map_err(|e| ResolveError::Example {
        place: place.clone(),
        message: e.to_string(),
    });
    checked(store, example, place)
}

/// The example of a kernel file under the kernels folder (`path` relative
/// to it), with its default id, reported at `place`.
pub(crate) fn resolve_file(
    settings: &Settings,
    store: &Store,
    path: &str,
    place: &Origin,
) -> Result<Resolved, ResolveError> {
    let example =
        Example::from_file(&settings.root, &settings.kernels, path, None, None).map_err(|e| {
            ResolveError::Example {
                place: place.clone(),
                message: e.to_string(),
            }
        });
    checked(store, example, place)
}

/// A resolved example held to the checks without a GPU, with its key.
fn checked(
    store: &Store,
    example: Result<Example, ResolveError>,
    place: &Origin,
) -> Result<Resolved, ResolveError> {
    let example = example?;
    plan_check::check_as_declared(&example).map_err(|error| ResolveError::Plan {
        place: place.clone(),
        error,
    })?;
    store
        .path_of(&example.id)
        .map_err(|e| ResolveError::Store {
            place: place.clone(),
            message: e.to_string(),
        })?;
    let key = cuda_measured_core::key::example_key(&example);
    Ok(Resolved { example, key })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{KERNEL, chapter, settings_in};

    // Inline and file examples resolve; errors name the chapter line and the fix.
    #[test]
    fn resolves_inline_file_and_broken_examples() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let text = format!(
            "# R\n\n```cuda run file=r/tree.cu anchor=body\n```\n\n```cuda run id=inline\n{KERNEL}```\n\n```cuda run file=r/none.cu\n```\n\n```cuda run file=r/tree.cu anchor=nope id=x\n```\n"
        );
        let catalog = Catalog::build(&settings, &[chapter("part/ch.md", &text)]);
        let e = &catalog.entries;
        assert_eq!(e.len(), 4);
        let tree = e[0].example().unwrap();
        assert_eq!(tree.id, "r/tree");
        assert!(tree.display.starts_with("extern \"C\""));
        assert_eq!(e[0].place.to_string(), "src/part/ch.md:3");
        let inline = e[1].example().unwrap();
        assert_eq!(inline.origin.to_string(), "src/part/ch.md:7");
        assert_ne!(e[0].resolved.as_ref().unwrap().key, "");
        let none_line = text.lines().position(|l| l.contains("r/none.cu")).unwrap() + 1;
        let missing = e[2].resolved.as_ref().unwrap_err().to_string();
        let want = format!("src/part/ch.md:{none_line}: kernels/r/none.cu:1: cannot read");
        assert!(missing.starts_with(&want), "{missing}");
        let anchor = e[3].resolved.as_ref().unwrap_err().to_string();
        assert!(anchor.contains("ANCHOR: nope"), "{anchor}");
        assert_eq!(e[3].shown_id(), "x");
    }

    // One id for two different examples is an error naming both places.
    #[test]
    fn duplicate_ids_name_both_places() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let a = chapter("a.md", "```cuda run file=r/tree.cu id=x\n```\n");
        let b = chapter("b.md", &format!("text\n\n```cuda run id=x\n{KERNEL}```\n"));
        let catalog = Catalog::build(&settings, &[a, b]);
        assert!(catalog.entries[0].resolved.is_ok());
        let err = catalog.entries[1]
            .resolved
            .as_ref()
            .unwrap_err()
            .to_string();
        let want = "src/b.md:3: duplicate example id `x`, also used at src/a.md:1";
        assert!(err.starts_with(want), "{err}");
        assert_eq!(catalog.by_id("x"), Some(0));
        assert_eq!(catalog.chapters.len(), 2);
    }

    // A kernel file shown again with another anchor is the same example,
    // listed once; the same file under its own id is another example.
    #[test]
    fn the_same_file_again_is_a_repeat() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let a = chapter("a.md", "```cuda run file=r/tree.cu\n```\n");
        let b = chapter(
            "b.md",
            "```cuda run file=r/tree.cu anchor=body\n```\n\n```cuda run file=r/tree.cu id=other\n```\n",
        );
        let catalog = Catalog::build(&settings, &[a, b]);
        let repeats: Vec<Option<usize>> = catalog.entries.iter().map(|e| e.repeat_of).collect();
        assert_eq!(repeats, [None, Some(0), None]);
        assert!(catalog.entries.iter().all(|e| e.resolved.is_ok()));
    }

    // The Run service's key of each block: a first listing by its id, a
    // later listing of an anchor as ID#ANCHOR, a later listing of the
    // whole file none (the service would splice it as the first).
    #[test]
    fn run_ids_of_first_and_later_listings() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let a = chapter(
            "a.md",
            "```cuda run file=r/tree.cu anchor=body\n```\n\n```cuda run file=r/tree.cu\n```\n\n```cuda run file=r/tree.cu anchor=body\n```\n\n```cuda run file=r/none.cu\n```\n",
        );
        let catalog = Catalog::build(&settings, &[a]);
        let ids: Vec<Option<String>> = catalog.entries.iter().map(Entry::run_id).collect();
        assert_eq!(
            ids,
            [
                Some("r/tree".to_string()),
                None,
                Some("r/tree#body".to_string()),
                None
            ]
        );
    }

    // A plan the target GPU would refuse is a broken example at build
    // time, with the header line; one that declares a launch error is left
    // to fail on the GPU, as declared.
    #[test]
    fn plans_the_gpu_would_refuse_are_broken_examples() {
        let big = KERNEL.replace("block = 32", "block = 2048");
        let declared = big.replace("sizes = ", "expect = \"launch-error\"\nsizes = ");
        let (_dir, settings) = settings_in(&[
            ("kernels/r/big.cu", &big),
            ("kernels/r/declared.cu", &declared),
        ]);
        let text = "```cuda run file=r/big.cu\n```\n\n```cuda run file=r/declared.cu\n```\n";
        let catalog = Catalog::build(&settings, &[chapter("a.md", text)]);
        assert_eq!(
            catalog.entries[0]
                .resolved
                .as_ref()
                .unwrap_err()
                .to_string(),
            "src/a.md:1: launch 0 (`tree`) asks for blocks of 2048 threads; NVIDIA H200 allows at most 1024 threads per block: lower `block` at kernels/r/big.cu:7"
        );
        assert!(catalog.entries[1].resolved.is_ok());
    }

    // An id that cannot be a results file name is refused before measuring.
    #[test]
    fn unusable_ids_are_refused() {
        let (_dir, settings) = settings_in(&[]);
        let text = format!("```cuda run id=../up\n{KERNEL}```\n");
        let catalog = Catalog::build(&settings, &[chapter("a.md", &text)]);
        let err = catalog.entries[0]
            .resolved
            .as_ref()
            .unwrap_err()
            .to_string();
        assert!(err.contains("not usable as a file name"), "{err}");
    }
}
