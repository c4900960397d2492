//! Rewriting one chapter's directives: the book-wide facts a chapter needs
//! ([`BookView`]), the chapter being rewritten ([`Page`]), the text that
//! replaces each directive (its value, or the error at its line), whether a
//! figure only waits to be measured (what `strict = "author"` accepts), and
//! where a directive sits on its line. [`crate::book_pass`] rewrites every
//! chapter with it, [`crate::exercise_page`] a stage's text.

use crate::artifacts::{allreduce, host, sanitizer, sass};
use crate::directives::{self, Directive, Found};
use crate::evidence::Evidence;
use crate::render::{self, Target};
use crate::report::{Report, Severity};
use crate::results::Results;
use crate::scan;
use crate::splice::{self, Edit};
use crate::values::{self, Value};
use std::path::Path;

/// What rewriting a chapter needs to know of the whole book.
pub(crate) struct BookView<'a> {
    /// Every example's outcome, and the stored reports.
    pub(crate) results: &'a Results<'a>,
    /// The stored evidence the directives use.
    pub(crate) evidence: &'a Evidence,
    /// The `id` of each entry's panel, in catalog order.
    pub(crate) anchors: Vec<Option<String>>,
    /// Each chapter's source path, relative to the chapters folder.
    pub(crate) paths: Vec<&'a Path>,
    /// What the page's editable blocks post to.
    pub(crate) run: &'a crate::config::RunLinks,
}

/// The chapter being rewritten, and what it is rewritten for.
pub(crate) struct Page<'a> {
    /// The whole book.
    pub(crate) book: &'a BookView<'a>,
    /// HTML or markdown.
    pub(crate) target: Target,
    /// The chapter's source path, relative to the chapters folder.
    pub(crate) source_path: &'a Path,
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
                report.push(Severity::Malformed, place, &found.text, message.to_string());
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
                    report.push(Severity::Malformed, place, &found.text, message.to_string());
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
                values::render(self.target, &value, alone)
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
    // A profile not collected (or without the stall reasons asked for),
    // and a count of resident clusters a record made before the runner
    // counted them lacks, wait for the GPU machine; otherwise they wait as
    // their example's record does.
    if matches!(
        directive,
        Directive::Profile { .. }
            | Directive::Measured {
                field: crate::directives::Field::Clusters,
                ..
            }
    ) && values::report_awaits_measuring(directive, results)
    {
        return true;
    }
    // A listing waits for scripts/sass, which needs no GPU.
    if let Directive::Sass(target) | Directive::SassCount { target, .. } = directive {
        return sass::awaits_listing(target, results);
    }
    // A sanitizer report and the host runs wait for the GPU machine's
    // `sanitize` and `host` stages.
    if let Directive::Sanitizer { id, check, size } = directive {
        return results
            .size_of(id, size)
            .is_ok_and(|size| sanitizer::awaits_report(id, check, size, results));
    }
    if let Directive::Host { id, size } = directive {
        return results
            .size_of(id, size)
            .is_ok_and(|size| host::awaits_runs(id, size, results));
    }
    if let Directive::Allreduce { gpus } | Directive::AllreduceFigure { gpus, .. } = directive {
        return allreduce::awaits_report(*gpus, results);
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
        | Directive::Ladder { size, .. } => Some(size),
        _ => None,
    };
    let mut waits = false;
    for written in directive.written_ids() {
        let id = crate::directives::example_id(written);
        let Some(index) = catalog.by_id(id) else {
            return false;
        };
        if outcomes[index].state().awaits_measuring() {
            let declared = catalog.entries[index].example().is_some_and(|e| {
                size.is_none_or(|n| {
                    n.resolve(e.declaration.dims())
                        .is_ok_and(|n| e.declaration.sizes.contains(&n))
                })
            });
            if !declared {
                return false;
            }
            waits = true;
        } else {
            let current = match size {
                // Every value, for a swept example a ladder names alone.
                Some(n) => crate::example_ref::ladder_bars(&[written.to_string()], catalog)
                    .iter()
                    .all(|w| results.at_written(w, n).is_ok()),
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
pub(crate) fn alone_on_line(content: &str, range: &std::ops::Range<usize>) -> bool {
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
pub(crate) fn leading_container(content: &str, start: usize) -> String {
    let line_start = content[..start].rfind('\n').map_or(0, |i| i + 1);
    content[line_start..start]
        .chars()
        .take_while(|c| *c == '>' || c.is_whitespace())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;
    use crate::stored::StoredReports;
    use crate::test_support::{KERNEL, catalog_of, settings_in};

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

    // A figure naming a value of a swept example whose record has that
    // value waits only on the other example; one whose record lacks it
    // does not wait (measuring the same code again would not add it).
    #[test]
    fn swept_values_await_measuring_by_value() {
        use crate::test_support::record;
        use cuda_measured_core::declaration::Expectation;
        use cuda_measured_core::record::Status;
        use cuda_measured_core::sweep::SweepValue;
        let swept = KERNEL
            .replace("[[launch]]", "[sweep]\nSTRIDE = [1, 2]\n[[launch]]")
            .replace("\"n\"]", "\"n\", \"STRIDE\"]")
            .replace("unsigned n)", "unsigned n, unsigned s)");
        let (_dir, settings) = settings_in(&[]);
        let text = format!("```cuda run id=s\n{swept}```\n\n```cuda run id=new\n{KERNEL}```\n");
        let catalog = catalog_of(&settings, &text);
        let mut r = record(Status::Pass, Expectation::Pass);
        r.sizes[0].sweep = Some(SweepValue {
            name: "STRIDE".into(),
            value: 1,
        });
        let outcomes = vec![Outcome::Fresh(r), Outcome::Missing];
        let stored = StoredReports::new(&settings.results, "results");
        let results = Results::new(&catalog, &outcomes, &stored);
        for (text, want) in [
            ("{{#ratio s@STRIDE=1 new 2^28}}", true),
            ("{{#ratio s@STRIDE=2 new 2^28}}", false),
            ("{{#ladder 2^28 new s}}", false),
        ] {
            let found = directives::find(text, &scan::scan(text));
            let directive = found[0].parsed.as_ref().unwrap();
            assert_eq!(awaits_measuring(directive, &results), want, "{text}");
        }
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
