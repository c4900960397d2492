//! The preprocessor pass over a whole book: collect every example
//! ([`Catalog`]), settle its outcome (store, and measuring as the mode
//! allows), then rewrite each chapter, replacing runnable blocks with code
//! and a results panel and directives with their values, and finally
//! report problems, failing the build when `strict` or `on-failure` say so.
//! Examples that only wait to be measured (and figures that wait only on
//! them) are reported as [`Severity::Pending`], which `strict = "author"`
//! accepts.

use crate::catalog::{Catalog, ChapterText};
use crate::compile_step;
use crate::config::{Mode, Settings};
use crate::directives::{self, Directive};
use crate::evidence::{self, Evidence};
use crate::exercise_page;
use crate::measure::{self, Bench, IsolatedBench, MeasureError, Settled};
use crate::outcome::Outcome;
use crate::page::{BookView, Page, alone_on_line, leading_container};
use crate::render::{self, Panel, Runnable, Target};
use crate::report::{Report, Severity};
use crate::results::Results;
use crate::scan;
use crate::splice::{self, Edit};
use crate::status_page;
use crate::stored::StoredReports;
use anyhow::{Context, bail};
use mdbook_preprocessor::book::Book;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

/// The `cuda` preprocessor.
#[derive(Debug, Default, Clone, Copy)]
pub struct CudaPreprocessor;

impl Preprocessor for CudaPreprocessor {
    fn name(&self) -> &str {
        "cuda"
    }

    fn run(&self, ctx: &PreprocessorContext, book: Book) -> anyhow::Result<Book> {
        let mut settings = Settings::load(&ctx.root, &ctx.config, |k| std::env::var(k).ok())?;
        if ctx.renderer == "test" {
            // `mdbook test` runs rustdoc on Rust blocks; it must never measure.
            settings.mode = Mode::Frozen;
        }
        let mut bench = IsolatedBench::new(
            settings.runner.clone(),
            cuda_measured_core::session::Config::from_env(),
        );
        bench.quick = settings.quick;
        let target = Target::for_renderer(&ctx.renderer);
        process(book, &settings, target, &mut bench, &mut std::io::stderr())
    }

    fn supports_renderer(&self, _renderer: &str) -> anyhow::Result<bool> {
        // HTML gets HTML panels, every other renderer markdown tables.
        Ok(true)
    }
}

/// What a pass over a book's chapters produced.
#[derive(Debug, Clone)]
pub struct Pass {
    /// The book's examples.
    pub catalog: Catalog,
    /// Their outcomes, in catalog order.
    pub settled: Settled,
    /// Problems found, in reading order.
    pub report: Report,
    /// The rewritten text of each chapter, in the order given.
    pub chapters: Vec<String>,
    /// The stored evidence the chapters' directives use, and its state.
    pub evidence: Evidence,
}

/// Collects, compiles (as `settings.compile` says), settles and renders the
/// examples and directives of `chapters`; progress of compiling and
/// measuring goes to `log`.
pub fn run_pass(
    chapters: &[ChapterText],
    settings: &Settings,
    target: Target,
    bench: &mut dyn Bench,
    log: &mut dyn Write,
) -> Result<Pass, MeasureError> {
    let catalog = Catalog::build(settings, chapters);
    let compiled = compile_step::compile_book(&catalog, settings, log);
    let settled = measure::settle(&catalog, settings, &compiled, bench, log)?;
    let stored = StoredReports::new(&settings.results, settings.shown(&settings.results))
        .with_root(&settings.root);
    let results = Results::new(&catalog, &settled.outcomes, &stored);
    let evidence = Evidence::new(&evidence::uses(settings, &catalog, chapters), &results);
    let book = BookView {
        results: &results,
        evidence: &evidence,
        anchors: status_page::panel_anchors(&catalog),
        paths: chapters.iter().map(|c| c.source_path.as_path()).collect(),
        run: &settings.run,
    };
    let mut report = Report::default();
    let chapters = chapters
        .iter()
        .enumerate()
        .map(|(index, chapter)| {
            rewrite_chapter(settings, &book, target, index, chapter, &mut report)
        })
        .collect();
    Ok(Pass {
        catalog,
        settled,
        report,
        chapters,
        evidence,
    })
}

/// Runs the pass over `book`, writes progress and problems to `log`, and
/// fails when `strict` or `on-failure` say the problems must fail the build.
pub fn process(
    mut book: Book,
    settings: &Settings,
    target: Target,
    bench: &mut dyn Bench,
    log: &mut dyn Write,
) -> anyhow::Result<Book> {
    let (paths, chapters): (Vec<PathBuf>, Vec<ChapterText>) = book
        .chapters()
        .filter_map(|ch| {
            let path = ch.path.clone()?;
            let source_path = ch.source_path.clone().unwrap_or_else(|| path.clone());
            let text = ChapterText::expanded(source_path, ch.content.clone(), &settings.src);
            Some((path, text))
        })
        .unzip();
    let pass = run_pass(&chapters, settings, target, bench, log)?;
    let mut rewritten: HashMap<PathBuf, String> = paths.into_iter().zip(pass.chapters).collect();
    book.for_each_chapter_mut(|ch| {
        if let Some(content) = ch.path.as_ref().and_then(|p| rewritten.remove(p)) {
            ch.content = content;
        }
    });
    if !pass.catalog.entries.is_empty() {
        writeln!(log, "{}", summary_line(&pass.catalog, &pass.settled))
            .context("writing to stderr")?;
    }
    let unlinked = crate::unlinked::unlinked(&settings.root, &settings.kernels, &pass.catalog);
    if let Some(line) = crate::unlinked::line(&unlinked) {
        writeln!(log, "{line}").context("writing to stderr")?;
    }
    write!(log, "{}", pass.report.describe(settings.strict)).context("writing to stderr")?;
    if pass.report.fails(settings.strict, settings.on_failure) {
        bail!(pass.report.failure_summary(settings.strict));
    }
    Ok(book)
}

/// Adds the problems of the chapter's examples and directives to `report`
/// and returns its new text.
fn rewrite_chapter(
    settings: &Settings,
    book: &BookView<'_>,
    target: Target,
    index: usize,
    chapter: &ChapterText,
    report: &mut Report,
) -> String {
    let results = book.results;
    let content = &chapter.content;
    let crlf = splice::uses_crlf(content);
    let mut edits = Vec::new();
    let catalog = results.catalog();
    let entries = catalog.entries.iter().zip(results.outcomes());
    for ((entry, outcome), anchor) in entries.zip(&book.anchors) {
        if entry.chapter != index {
            continue;
        }
        let id = entry.shown_id();
        let raw = &content[entry.block.range.clone()];
        let panel = Panel {
            id: &id,
            anchor: anchor.as_deref(),
            outcome,
            raw,
        };
        // A repeat shows more of an example whose panel and problems belong
        // to its first listing.
        let first_listing = entry.repeat_of.is_none();
        if first_listing {
            let results_file = settings.shown(&settings.results.join(format!("{id}.json")));
            if let Some(reason) = outcome.problem(entry.example(), &results_file) {
                let severity = match outcome {
                    Outcome::Broken(_) => Severity::Malformed,
                    o if o.state().awaits_measuring() => Severity::Pending,
                    _ => Severity::Unmeasured,
                };
                report.push(severity, entry.place.to_string(), id.clone(), reason);
            }
        }
        // A stage's kernels are shown by the stage, where its directive is.
        if entry.exercise.is_some() {
            continue;
        }
        let run_id = entry.run_id();
        let runnable = run_id.as_deref().map(|example| Runnable {
            example,
            stage: None,
            links: &settings.run,
        });
        let text = render::block(
            target,
            entry.example(),
            first_listing.then_some(&panel),
            runnable.as_ref(),
        );
        edits.push(Edit {
            range: entry.block.range.clone(),
            text: splice::fit(&text, &entry.block.continuation, crlf),
        });
    }
    let page = Page {
        book,
        target,
        source_path: &chapter.source_path,
    };
    for found in directives::find(content, &catalog.chapters[index]) {
        let place = chapter.place_at(settings, found.range.start);
        let alone = alone_on_line(content, &found.range);
        let text = match (&found.parsed, catalog.exercise_at(index, found.range.start)) {
            (Ok(Directive::Exercise { .. }), Some(slot)) if alone => {
                exercise_page::render(&page, slot, &found.text, &place, report)
            }
            (Ok(Directive::Exercise { .. }), _) => {
                let message =
                    "a stage is a block of its own: write the directive alone on its line";
                report.push(Severity::Malformed, &place, &found.text, message);
                render::directive_error(target, &format!("{place}: {message}"))
            }
            _ => page.directive(&found, &place, alone, report),
        };
        let continuation = if alone {
            scan::continuation_prefix(content, found.range.start)
        } else {
            leading_container(content, found.range.start)
        };
        edits.push(Edit {
            range: found.range,
            text: splice::fit(&text, &continuation, crlf),
        });
    }
    let out = splice::apply(content, edits);
    // In the HTML book: dollar signs and backticks in the plugin's HTML
    // escaped, so the maths preprocessor after it pairs only the author's; powers of two
    // one way, `2^20` as `2²⁰`.
    match target {
        Target::Html => crate::powers::in_page(&crate::maths_guard::escaped_in_html(&out)),
        _ => out,
    }
}

/// `[cuda] 12 example(s): 10 current, 1 stale, ...`, each example counted
/// once however often it is shown; examples measured but not stored count
/// as current and are named again at the end.
pub fn summary_line(catalog: &Catalog, settled: &Settled) -> String {
    let mut counts = [0usize; 4];
    let mut unstored = 0;
    let firsts = catalog
        .entries
        .iter()
        .zip(&settled.outcomes)
        .filter(|(e, _)| e.repeat_of.is_none());
    for (_, outcome) in firsts {
        let slot = match outcome {
            Outcome::Fresh(_) => 0,
            Outcome::Unstored { .. } => {
                unstored += 1;
                0
            }
            Outcome::Stale(_) => 1,
            Outcome::Missing => 2,
            Outcome::Broken(_) => 3,
        };
        counts[slot] += 1;
    }
    let mut line = format!(
        "[cuda] {} example(s): {} current, {} stale, {} not measured, {} broken; {} measured in this build",
        counts.iter().sum::<usize>(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        settled.measured
    );
    if unstored > 0 {
        line.push_str(&format!(", {unstored} of them NOT stored"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{KERNEL, chapter, settings_in};

    /// A bench for books in frozen mode, which never measure.
    struct NoBench;

    impl Bench for NoBench {
        fn probe(&mut self) -> Option<cuda_measured_core::record::GpuFacts> {
            unreachable!("frozen books never probe")
        }
        fn measure(
            &mut self,
            _: &cuda_measured_core::example::Example,
            _: &str,
            _: std::time::Duration,
        ) -> cuda_measured_core::record::Record {
            unreachable!("frozen books never measure")
        }
        fn describe(&self) -> String {
            "none".into()
        }
    }

    // Only the runnable block and the directive change; every other byte
    // (CRLF, non-ASCII, the plain cuda block, the list) stays as written,
    // and the replacement follows the chapter's line endings and indentation.
    #[test]
    fn rewrite_keeps_every_other_byte() {
        let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let before = "# Größe\r\n\r\n```cuda\r\nplain();\r\n```\r\n\r\n1. Schritt:\r\n\r\n   ";
        let block = "```cuda run file=r/tree.cu anchor=body\r\n   ```";
        let between = "\r\n\r\n   danach ≈ ";
        let directive = "{{#measured r/tree time 2^28}}";
        let after = " µs.\r\n";
        let content = format!("{before}{block}{between}{directive}{after}");
        let chapter = chapter("ch.md", &content);
        let pass = run_pass(
            &[chapter],
            &settings,
            Target::Html,
            &mut NoBench,
            &mut Vec::new(),
        )
        .unwrap();
        let out = &pass.chapters[0];
        assert!(out.starts_with(before), "{out}");
        // (The tooltip's backticks as &#96;, for the maths preprocessor:
        // crate::maths_guard.)
        assert!(out.ends_with(&format!("{between}<span class=\"cm-unmeasured\" title=\"&#96;r/tree&#96; is not measured yet\">not measured</span>{after}")), "{out}");
        let replaced = &out[before.len()..out.find(between).unwrap()];
        // The editor's wrapper (theme/run.js) around the code and panel.
        assert!(
            replaced.starts_with(
                "<div class=\"cm-run\" data-example=\"r/tree\">\r\n\r\n   ```cuda\r\n   extern \"C\""
            ),
            "{replaced}"
        );
        assert!(replaced.ends_with("\r\n\r\n   </div>\r\n"), "{replaced:?}");
        assert!(
            replaced.contains("\r\n\r\n   <div class=\"cm-panel cm-missing\""),
            "{replaced}"
        );
        assert!(
            !replaced.replace("\r\n", "").contains('\n'),
            "bare LF in {replaced:?}"
        );
        assert_eq!(pass.report.problems.len(), 2, "{:?}", pass.report);
    }
}
