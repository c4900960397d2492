use super::*;
use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::stored::StoredReports;
use crate::test_support::{KERNEL, catalog_of, settings_in};
use crate::values::Value;
use cuda_measured_core::sanitizer::Location;
use cuda_measured_core::size::Size;

// `{{#sanitizer}}` and `{{#host}}` as their directives evaluate them:
// the view, or the value shown instead.
fn evaluate(id: &str, check: &str, size: Dims, results: &Results<'_>) -> Value {
    super::evaluate(id, check, size, results)
        .map_or_else(Value::from, |view| Value::Sanitizer(Box::new(view)))
}

fn host_value(id: &str, size: Dims, results: &Results<'_>) -> Value {
    crate::artifacts::host::evaluate(id, size, results)
        .map_or_else(Value::from, |view| Value::Host(Box::new(view)))
}

/// A book whose chapter lists kernel file `r/tree.cu` (the test kernel:
/// `tree` on line 11, declared at 2^28), and its stored reports.
struct Book {
    _dir: tempfile::TempDir,
    results_dir: std::path::PathBuf,
    catalog: Catalog,
    outcomes: Vec<Outcome>,
    stored: StoredReports,
}

impl Book {
    fn new() -> Self {
        let (dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let catalog = catalog_of(&settings, "```cuda run file=r/tree.cu\n```\n");
        let stored = StoredReports::new(&settings.results, "results");
        Book {
            results_dir: settings.results.clone(),
            _dir: dir,
            catalog,
            outcomes: vec![Outcome::Missing],
            stored,
        }
    }

    fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    fn key(&self) -> String {
        self.results().example("r/tree").unwrap().1.to_string()
    }

    /// Stores `report` where `{{#sanitizer r/tree CHECK 2^28}}` reads it.
    fn store(&self, report: &Report) {
        let path = self.results_dir.join(sanitizer::relative_path(
            "r/tree",
            &report.check,
            report.size(),
        ));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string(report).unwrap()).unwrap();
    }
}

/// A racecheck finding between lines `a` and `b` of tree.cu.
fn race(a: u32, b: u32) -> Finding {
    Finding {
        severity: "Error".into(),
        lines: vec![
            format!(
                "Error: Race reported between Write access at tree+0x10 in /b/kernels/r/tree.cu:{a}"
            ),
            format!("and Read access at tree+0x20 in /b/kernels/r/tree.cu:{b} [2 hazards]"),
        ],
        locations: [a, b]
            .into_iter()
            .map(|line| Location {
                file: "tree.cu".into(),
                line,
            })
            .collect(),
    }
}

/// A racecheck report of `r/tree` at 2^28 made with `key`.
fn report(key: &str, findings: Vec<Finding>) -> Report {
    let errors = findings.len() as u32;
    Report {
        schema: sanitizer::SCHEMA_VERSION,
        example: "r/tree".into(),
        key: key.into(),
        n: Size(1 << 28),
        dims: None,
        check: "racecheck".into(),
        tool: "compute-sanitizer 2025.3.1".into(),
        gpu: "NVIDIA H200".into(),
        made_at: "2026-12-02T09:30:00Z".into(),
        findings,
        summary: Some(format!(
            "RACECHECK SUMMARY: {errors} hazards displayed ({errors} errors, 0 warnings)"
        )),
        errors,
        warnings: 0,
    }
}

fn view_of(value: &Value) -> &SanitizerView {
    match value {
        Value::Sanitizer(view) => view,
        other => panic!("{other:?}"),
    }
}

const N: Dims = Dims::n(1 << 28);

// A current report gives each place the line of code there, once per
// place, and is no problem for any build.
#[test]
fn a_current_report_shows_the_code_at_each_place() {
    let book = Book::new();
    book.store(&report(&book.key(), vec![race(11, 10), race(11, 11)]));
    let value = evaluate("r/tree", "racecheck", N, &book.results());
    let view = view_of(&value);
    assert_eq!(value.problem(), None);
    let stored = view.stored.as_ref().unwrap();
    assert_eq!(stored.counts(), "2 errors, 0 warnings");
    assert_eq!(stored.mark(), "✗");
    let first = &stored.findings[0].sources;
    assert_eq!(first[0].place, "tree.cu:11");
    assert_eq!(
        first[0].code.as_deref(),
        Some("extern \"C\" __global__ void tree(const float* x, float* out, unsigned n) {}")
    );
    assert_eq!(first[1].code.as_deref(), Some("// ANCHOR: body"));
    // The same place twice in a finding is shown once.
    assert_eq!(stored.findings[1].sources.len(), 1);
    assert!(stored.findings[0].text().contains("\n    and Read access"));
    assert!(!awaits_report("r/tree", "racecheck", N, &book.results()));
}

// No report, or one of earlier code, fails a strict build with the GPU
// session's stage to run, and waits in an author's build; a stale one
// shows its places without the code of now.
#[test]
fn missing_and_stale_reports_wait_for_the_sanitize_stage() {
    let book = Book::new();
    let missing = evaluate("r/tree", "racecheck", N, &book.results());
    assert_eq!(
        missing.problem().as_deref(),
        Some(
            "not run: results/sanitizer/r/tree/racecheck-268435456.json does not exist; run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine and commit results/sanitizer/"
        )
    );
    assert!(awaits_report("r/tree", "racecheck", N, &book.results()));
    book.store(&report("an-earlier-key", vec![race(11, 10)]));
    let stale = evaluate("r/tree", "racecheck", N, &book.results());
    assert_eq!(
        stale.problem().as_deref(),
        Some(
            "results/sanitizer/r/tree/racecheck-268435456.json was run on an earlier version of `r/tree`; run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine and commit results/sanitizer/"
        )
    );
    let stored = view_of(&stale).stored.as_ref().unwrap();
    assert_eq!(stored.findings[0].sources[0].code, None);
    assert!(awaits_report("r/tree", "racecheck", N, &book.results()));
}

// An unknown id or an undeclared size is a mistake at the directive's
// line, and never waits; a file holding another check's report is not
// current and does not wait either.
#[test]
fn unknown_ids_sizes_and_misfiled_reports() {
    let book = Book::new();
    let results = book.results();
    assert_eq!(
        evaluate("r/tere", "racecheck", N, &results),
        Value::Mistake("no example with id `r/tere` in this book; did you mean `r/tree`?".into())
    );
    assert_eq!(
        evaluate("r/tree", "racecheck", Dims::n(1 << 20), &results),
        Value::Mistake("`r/tree` does not declare N = 2^20: its declared sizes are 2^28".into())
    );
    assert!(!awaits_report("r/tere", "racecheck", N, &results));
    assert!(!awaits_report(
        "r/tree",
        "racecheck",
        Dims::n(1 << 20),
        &results
    ));
    let mut other = report(&book.key(), Vec::new());
    other.check = "memcheck".into();
    let path = book
        .results_dir
        .join(sanitizer::relative_path("r/tree", "racecheck", N));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string(&other).unwrap()).unwrap();
    let misfiled = evaluate("r/tree", "racecheck", N, &book.results());
    assert!(
        matches!(&misfiled, Value::Unmeasured(why) if why.starts_with("results/sanitizer/r/tree/racecheck-268435456.json holds memcheck of `r/tree`")),
        "{misfiled:?}"
    );
}

// Many findings: the first four show, the rest fold; a clean run says it
// found nothing.
#[test]
fn many_findings_fold_and_a_clean_run_says_so() {
    let book = Book::new();
    let findings = (0..6).map(|k| race(10 + k % 3, 11)).collect();
    book.store(&report(&book.key(), findings));
    let value = evaluate("r/tree", "racecheck", N, &book.results());
    let html = super::html(view_of(&value)).into_string();
    assert_eq!(html.matches("class=\"cm-sanitizer-finding\"").count(), 6);
    assert!(
        html.contains("<summary>2 more findings</summary>"),
        "{html}"
    );
    assert!(
        !html.contains("\n\n"),
        "a blank line ends the HTML block: {html}"
    );
    book.store(&report(&book.key(), Vec::new()));
    let clean = evaluate("r/tree", "racecheck", N, &book.results());
    let html = super::html(view_of(&clean)).into_string();
    assert!(html.contains("No finding: the racecheck check reported nothing"));
    assert!(html.contains("cm-panel cm-sanitizer cm-pass"));
}

// The GPU session runs kernels/ID.cu: an inline example, or a kernel file
// shown under another id, cannot be run there, which is a mistake at the
// directive's line (for {{#host}} too), never a wait.
#[test]
fn only_kernel_files_under_their_own_id_can_be_run() {
    let (_dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
    let text = format!(
        "```cuda run id=inline\n{KERNEL}```\n\n```cuda run file=r/tree.cu id=renamed\n```\n"
    );
    let catalog = catalog_of(&settings, &text);
    let outcomes = vec![Outcome::Missing, Outcome::Missing];
    let stored = StoredReports::new(&settings.results, "results");
    let results = Results::new(&catalog, &outcomes, &stored);
    let cases = [
        (
            evaluate("inline", "racecheck", N, &results),
            "`inline` is written in src/ch.md, not in kernels/inline.cu: bench/gpu-session.sh runs {{#sanitizer}} for kernel files under their default id (the path without .cu); move the example into kernels/inline.cu, or drop its id=",
        ),
        (
            host_value("renamed", N, &results),
            "`renamed` is written in kernels/r/tree.cu, not in kernels/renamed.cu: bench/gpu-session.sh runs {{#host}} for kernel files under their default id (the path without .cu); move the example into kernels/renamed.cu, or drop its id=",
        ),
    ];
    for (value, want) in cases {
        assert_eq!(value, Value::Mistake(want.into()));
    }
    assert!(!awaits_report("inline", "racecheck", N, &results));
}
