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
use crate::directives::{self, Directive, Found};
use crate::evidence::{self, Evidence};
use crate::exercise_page;
use crate::measure::{self, Bench, IsolatedBench, MeasureError, Settled};
use crate::outcome::Outcome;
use crate::render::{self, Panel, Target};
use crate::report::{Report, Severity};
use crate::scan;
use crate::splice::{self, Edit};
use crate::status_page;
use crate::stored::StoredReports;
use crate::values::{self, Results, Value};
use anyhow::{Context, bail};
use mdbook_preprocessor::book::Book;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

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
        let mut bench = IsolatedBench::new(settings.runner.clone());
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
            Some((
                path,
                ChapterText {
                    source_path,
                    content: ch.content.clone(),
                },
            ))
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
    write!(log, "{}", pass.report.describe(settings.strict)).context("writing to stderr")?;
    if pass.report.fails(settings.strict, settings.on_failure) {
        bail!(pass.report.failure_summary(settings.strict));
    }
    Ok(book)
}

/// What rewriting a chapter needs to know of the whole book.
pub(crate) struct BookView<'a> {
    /// Every example's outcome, and the stored reports.
    pub(crate) results: &'a Results<'a>,
    /// The stored evidence the directives use.
    evidence: &'a Evidence,
    /// The `id` of each entry's panel, in catalog order.
    pub(crate) anchors: Vec<Option<String>>,
    /// Each chapter's source path, relative to the chapters folder.
    paths: Vec<&'a Path>,
}

/// The chapter being rewritten, and what it is rewritten for.
pub(crate) struct Page<'a> {
    /// The whole book.
    pub(crate) book: &'a BookView<'a>,
    /// HTML or markdown.
    pub(crate) target: Target,
    /// The chapter's source path, relative to the chapters folder.
    source_path: &'a Path,
}

impl Page<'_> {
    /// The text replacing a directive that is not an exercise stage, its
    /// problem (if any) added to `report` at `place`.
    pub(crate) fn directive(
        &self,
        found: &Found,
        place: &str,
        alone: bool,
        report: &mut Report,
    ) -> String {
        let results = self.book.results;
        match &found.parsed {
            Err(message) => {
                report.push(Severity::Malformed, place, &found.text, message);
                render::directive_error(self.target, &format!("{place}: {message}"))
            }
            Ok(directive) if !alone && directive.block_form().is_some() => {
                let message = match directive {
                    Directive::Sass(_) => "a listing is a block of its own: write {{#sass}} alone on its line (use {{#sass_count}} for a count in a sentence)".to_string(),
                    other => format!(
                        "{} is a block of its own: write it alone on its line",
                        other.block_form().unwrap_or_default()
                    ),
                };
                report.push(Severity::Malformed, place, &found.text, &message);
                render::directive_error(self.target, &format!("{place}: {message}"))
            }
            Ok(directive) => {
                let mut value = values::evaluate(directive, results);
                if let Value::Status(page) = &mut value {
                    page.evidence = self.book.evidence.clone();
                    page.link_from(&self.book.paths, self.source_path);
                }
                if let Value::Mistake(message) = &value {
                    report.push(Severity::Malformed, place, &found.text, message);
                    return render::directive_error(self.target, &format!("{place}: {message}"));
                }
                if let Some(reason) = value.problem() {
                    let severity = if awaits_measuring(directive, results) {
                        Severity::Pending
                    } else {
                        Severity::Unmeasured
                    };
                    report.push(severity, place, &found.text, reason);
                }
                render::value(self.target, &value, alone)
            }
        }
    }

    /// Markdown written in `file` from line `first_line` on (a stage's
    /// text), with its directives replaced; a stage inside it is refused.
    pub(crate) fn expand(
        &self,
        text: &str,
        file: &str,
        first_line: usize,
        report: &mut Report,
    ) -> String {
        let scan = scan::scan(text);
        let mut edits = Vec::new();
        for found in directives::find(text, &scan) {
            let place = format!("{file}:{}", first_line + found.line - 1);
            let alone = alone_on_line(text, &found.range);
            let replaced = if let Ok(Directive::Exercise { .. }) = &found.parsed {
                let message =
                    "a stage's text cannot show another stage: move the directive to the chapter";
                report.push(Severity::Malformed, &place, &found.text, message);
                render::directive_error(self.target, &format!("{place}: {message}"))
            } else {
                self.directive(&found, &place, alone, report)
            };
            let continuation = if alone {
                scan::continuation_prefix(text, found.range.start)
            } else {
                leading_container(text, found.range.start)
            };
            edits.push(Edit {
                range: found.range,
                text: splice::fit(&replaced, &continuation, false),
            });
        }
        splice::apply(text, edits)
    }
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
        let text = render::block(target, entry.example(), first_listing.then_some(&panel));
        edits.push(Edit {
            range: entry.block.range.clone(),
            text: splice::fit(&text, &entry.block.continuation, crlf),
        });
    }
    let chapter_file = settings.shown(&settings.src.join(&chapter.source_path));
    let page = Page {
        book,
        target,
        source_path: &chapter.source_path,
    };
    for found in directives::find(content, &catalog.chapters[index]) {
        let place = format!("{chapter_file}:{}", found.line);
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
    splice::apply(content, edits)
}

/// Whether a directive's figure waits only on examples that have no record
/// for their current code yet (missing or stale), at sizes they declare:
/// measuring settles it, so an author build accepts it. A figure of an
/// unknown or broken example, of a size its example does not declare, or
/// of a stored report does not wait. `{{#gpu}}` waits while no
/// example has a current record and some wait to be measured. A SASS
/// listing missing or made for earlier code waits for `scripts/sass`; a
/// sanitizer report or host run missing or of earlier code waits for the
/// GPU machine's `sanitize` or `host` stage. An all-reduce report missing,
/// unreadable or stale waits for a run on a machine with its GPUs.
fn awaits_measuring(directive: &Directive, results: &Results<'_>) -> bool {
    if matches!(
        directive,
        Directive::Peers { .. } | Directive::Repeatability
    ) {
        return values::report_awaits_measuring(directive, results);
    }
    // A listing waits for scripts/sass, which needs no GPU.
    if let Directive::Sass(target) | Directive::SassCount { target, .. } = directive {
        return crate::sass_view::awaits_listing(target, results);
    }
    // A sanitizer report and the host runs wait for the GPU machine's
    // `sanitize` and `host` stages.
    if let Directive::Sanitizer { id, check, size } = directive {
        return crate::sanitizer_view::awaits_report(id, check, *size, results);
    }
    if let Directive::Host { id, size } = directive {
        return crate::host_view::awaits_runs(id, *size, results);
    }
    if let Directive::Allreduce { gpus } | Directive::AllreduceFigure { gpus, .. } = directive {
        return crate::allreduce_view::awaits_report(*gpus, results);
    }
    let catalog = results.catalog();
    let outcomes = results.outcomes();
    if *directive == Directive::Gpu {
        return outcomes.iter().all(|o| o.fresh().is_none())
            && outcomes.iter().any(|o| o.state().awaits_measuring());
    }
    let size = match directive {
        Directive::Measured { size, .. }
        | Directive::Ratio { size, .. }
        | Directive::Ladder { size, .. } => Some(*size),
        _ => None,
    };
    let mut waits = false;
    for id in directive.ids() {
        let Some(index) = catalog.by_id(id) else {
            return false;
        };
        if outcomes[index].state().awaits_measuring() {
            let declared = catalog.entries[index].example().is_some_and(|e| {
                size.is_none_or(|n| {
                    e.declaration
                        .sizes
                        .contains(&cuda_measured_core::dims::Dims::n(n.0))
                })
            });
            if !declared {
                return false;
            }
            waits = true;
        } else {
            let current = match size {
                Some(n) => results.at(id, n).is_ok(),
                None => results.record(id).is_ok(),
            };
            if !current {
                return false;
            }
        }
    }
    waits
}

/// Whether only container markers (indentation, `>`, list markers)
/// precede `range` on its line and only spaces follow it.
fn alone_on_line(content: &str, range: &std::ops::Range<usize>) -> bool {
    let line_start = content[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = content[range.end..]
        .find('\n')
        .map_or(content.len(), |i| range.end + i);
    let is_marker = |word: &str| {
        matches!(word, "-" | "*" | "+")
            || word
                .strip_suffix(['.', ')'])
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    content[line_start..range.start]
        .split(|c: char| c == '>' || c.is_whitespace())
        .all(|word| word.is_empty() || is_marker(word))
        && content[range.end..line_end].trim().is_empty()
}

/// The spaces and `>` that start the line holding `start`.
fn leading_container(content: &str, start: usize) -> String {
    let line_start = content[..start].rfind('\n').map_or(0, |i| i + 1);
    content[line_start..start]
        .chars()
        .take_while(|c| *c == '>' || c.is_whitespace())
        .collect()
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
    use crate::test_support::{KERNEL, catalog_of, chapter, settings_in};

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
        assert!(out.ends_with(&format!("{between}<span class=\"cm-unmeasured\" title=\"`r/tree` is not measured yet\">not measured</span>{after}")), "{out}");
        let replaced = &out[before.len()..out.find(between).unwrap()];
        assert!(
            replaced.starts_with("```cpp\r\n   extern \"C\""),
            "{replaced}"
        );
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

    // A figure waits to be measured (what an author build accepts) when
    // only examples without a record for their current code stand in its
    // way, at sizes they declare; unknown ids, undeclared sizes, broken
    // examples and stored reports do not wait, but an all-reduce report
    // not made yet does (only a machine with its GPUs makes it).
    #[test]
    fn which_figures_await_measuring() {
        use crate::test_support::record;
        use cuda_measured_core::declaration::Expectation;
        use cuda_measured_core::record::Status;
        let (_dir, settings) = settings_in(&[]);
        let text: String = ["fast", "new", "old", "bad"]
            .iter()
            .map(|id| format!("```cuda run id={id}\n{KERNEL}```\n\n"))
            .chain(["```cuda run id=broken\nnot a kernel\n```\n".to_string()])
            .collect();
        let catalog = catalog_of(&settings, &text);
        let pass = record(Status::Pass, Expectation::Pass);
        let outcomes = vec![
            Outcome::Fresh(pass.clone()),
            Outcome::Missing,
            Outcome::Stale(pass),
            Outcome::Fresh(record(Status::Wrong, Expectation::Pass)),
            Outcome::Broken("src/ch.md:40: bad".into()),
        ];
        let stored = StoredReports::new(&settings.results, "results");
        let results = Results::new(&catalog, &outcomes, &stored);
        let cases = [
            ("{{#measured new time 2^28}}", true),
            ("{{#measured old gbs 2^28}}", true),
            ("{{#ratio fast new 2^28}}", true),
            ("{{#ladder 2^28 fast old new}}", true),
            ("{{#ceiling new read}}", true),
            ("{{#measured new time 2^20}}", false),
            ("{{#measured nope time 2^28}}", false),
            ("{{#ratio new broken 2^28}}", false),
            ("{{#ratio new fast 2^20}}", false),
            ("{{#measured fast time 2^28}}", false),
            ("{{#peers sum_f32}}", false),
            ("{{#repeatability}}", false),
            ("{{#gpu}}", false),
            ("{{#allreduce 2}}", true),
            ("{{#allreduce_figure 2 nccl busbw 1KiB}}", true),
        ];
        for (text, want) in cases {
            let found = directives::find(text, &scan::scan(text));
            let directive = found[0].parsed.as_ref().unwrap();
            assert_eq!(awaits_measuring(directive, &results), want, "{text}");
        }
        let nothing_current = [
            Outcome::Missing,
            Outcome::Stale(record(Status::Pass, Expectation::Pass)),
        ];
        let results = Results::new(&catalog, &nothing_current, &stored);
        assert!(awaits_measuring(&Directive::Gpu, &results));
    }

    // Block content may only open its own block when nothing shares its line.
    #[test]
    fn alone_on_line_cases() {
        let cases = [
            ("{{#ladder 1 a}}\n", true),
            ("   {{#ladder 1 a}}  \r\n", true),
            ("> {{#ladder 1 a}}", true),
            ("See {{#ladder 1 a}}\n", false),
            ("{{#ladder 1 a}} and more\n", false),
            ("> 1. {{#ladder 1 a}}\n", true),
            ("- x {{#ladder 1 a}}\n", false),
        ];
        for (text, want) in cases {
            let start = text.find("{{").unwrap();
            let end = text.find("}}").unwrap() + 2;
            assert_eq!(alone_on_line(text, &(start..end)), want, "{text:?}");
        }
        assert_eq!(leading_container("> - See {{#x}}", 8), "> ");
    }
}
