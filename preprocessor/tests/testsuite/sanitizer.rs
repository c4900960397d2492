//! `{{#sanitizer}}`: a stored compute-sanitizer report rendered, and the
//! builds a missing, stale or misnamed report fails.

use crate::book_test::BookTest;

/// The racecheck report of the fixture, relative to its root.
const RACE: &str =
    "results/sanitizer/exercise/reduction/stage3_missing_sync/racecheck-4194304.json";

// A current racecheck report shows its counts, the finding's lines and the
// two racing lines of code; a clean memcheck in a list keeps its place.
#[test]
fn sanitizer_report_renders() {
    BookTest::snapshot_fixture("sanitizer");
}

// Other renderers get the finding as text and the code lines as a list.
#[test]
fn markdown_renderer_gets_the_finding_as_text() {
    let test = BookTest::from_fixture("sanitizer").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    insta::assert_snapshot!("sanitizer__markdown", test.read("book/race.md"));
}

// Current reports pass the strict build.
#[test]
fn current_reports_pass_the_strict_build() {
    BookTest::from_fixture("sanitizer")
        .env("CUDA_MEASURED_STRICT", "1")
        .build()
        .assert_success();
}

/// The fixture with its racecheck report's key replaced by one of earlier
/// code.
fn with_stale_report() -> BookTest {
    let test = BookTest::from_fixture("sanitizer");
    let path = test.root().join(RACE);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut report: serde_json::Value = serde_json::from_str(&text).unwrap();
    report["key"] = "an-earlier-key".into();
    std::fs::write(&path, report.to_string()).unwrap();
    test
}

// A report of earlier code fails the strict build, naming the file and the
// GPU session's stage; the author's build accepts it, greyed, its places
// shown without the code of now.
#[test]
fn a_stale_report_fails_the_strict_build_and_waits_in_the_authors() {
    let strict = with_stale_report().env("CUDA_MEASURED_STRICT", "1").build();
    strict.assert_failure();
    let want = "[cuda] src/race.md:6: {{#sanitizer exercise/reduction/stage3_missing_sync racecheck 2^22}}: results/sanitizer/exercise/reduction/stage3_missing_sync/racecheck-4194304.json was run on an earlier version of `exercise/reduction/stage3_missing_sync`; run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine and commit results/sanitizer/";
    assert!(strict.stderr.contains(want), "{}", strict.stderr);
    let test = with_stale_report().env("CUDA_MEASURED_STRICT", "author");
    test.build().assert_success();
    let html = test.main_html("race.html");
    assert!(html.contains("cm-panel cm-sanitizer cm-stale"), "{html}");
    assert!(html.contains("(code not shown)"), "{html}");
}

// A report never run is a "not run" panel: strict fails, the author's
// build waits for the GPU machine.
#[test]
fn a_missing_report_is_not_run() {
    let test = BookTest::from_fixture("sanitizer").env("CUDA_MEASURED_STRICT", "1");
    std::fs::remove_file(test.root().join(RACE)).unwrap();
    let run = test.build();
    run.assert_failure();
    assert!(
        run.stderr.contains("not run: results/sanitizer/exercise/reduction/stage3_missing_sync/racecheck-4194304.json does not exist; run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine"),
        "{}",
        run.stderr
    );
    let test = test.env("CUDA_MEASURED_STRICT", "author");
    test.build().assert_success();
    let html = test.main_html("race.html");
    assert!(
        html.contains("compute-sanitizer racecheck: not run"),
        "{html}"
    );
}

// A check compute-sanitizer does not have, a size the example does not
// declare, an unknown id and a report inside a sentence are errors at
// their line, with the word meant; even the author's build fails on them.
#[test]
fn misnamed_checks_sizes_and_ids_are_errors_at_their_line() {
    let test = BookTest::from_fixture("sanitizer").env("CUDA_MEASURED_STRICT", "author");
    std::fs::write(
        test.root().join("src/race.md"),
        "# Race\n\n{{#sanitizer exercise/reduction/stage3_missing_sync racechek 2^22}}\n\n{{#sanitizer exercise/reduction/stage3_missing_sync racecheck 2^20}}\n\nSee {{#sanitizer exercise/reduction/stage3_missing_sync racecheck 2^22}} here.\n\n{{#sanitizer exercise/reduction/stage3_missing_snyc racecheck 2^22}}\n\n```cuda run file=exercise/reduction/stage3_missing_sync.cu\n```\n",
    )
    .unwrap();
    let run = test.build();
    run.assert_failure();
    for want in [
        "[cuda] src/race.md:3: {{#sanitizer exercise/reduction/stage3_missing_sync racechek 2^22}}: `racechek` is not a compute-sanitizer check; did you mean `racecheck`?",
        "[cuda] src/race.md:5: {{#sanitizer exercise/reduction/stage3_missing_sync racecheck 2^20}}: `exercise/reduction/stage3_missing_sync` does not declare N = 2^20: its declared sizes are 2^22",
        "[cuda] src/race.md:7: {{#sanitizer exercise/reduction/stage3_missing_sync racecheck 2^22}}: {{#sanitizer}} is a block of its own: write it alone on its line",
        "[cuda] src/race.md:9: {{#sanitizer exercise/reduction/stage3_missing_snyc racecheck 2^22}}: no example with id `exercise/reduction/stage3_missing_snyc` in this book; did you mean `exercise/reduction/stage3_missing_sync`?",
    ] {
        assert!(
            run.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            run.stderr
        );
    }
}
