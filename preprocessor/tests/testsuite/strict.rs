//! Which builds fail: strict builds on anything not current and as
//! declared, `on-failure = "bail"` on malformed examples.

use crate::book_test::BookTest;

// A strict build fails and names the stale example, its place and the fix.
#[test]
fn strict_build_fails_naming_the_stale_example() {
    let run = BookTest::from_fixture("stale")
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    run.assert_failure();
    let want = "[cuda] src/stale.md:5: reductions/stride: stale: kernels/reductions/stride.cu changed since it was measured; run `scripts/book` on a GPU machine";
    assert!(
        run.stderr.contains(want),
        "stderr lacks {want:?}:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("strict build: 1 problem(s)"),
        "{}",
        run.stderr
    );
}

// The same stale book builds when not strict, with a one-line hint.
#[test]
fn lenient_build_succeeds_with_a_hint() {
    let run = BookTest::from_fixture("stale").build();
    run.assert_success();
    assert!(
        run.stderr.contains("1 example(s) or figure(s) are stale"),
        "{}",
        run.stderr
    );
}

// Strict is also read from book.toml (here through mdBook's own env override).
#[test]
fn strict_from_book_config() {
    let run = BookTest::from_fixture("missing")
        .env("MDBOOK_PREPROCESSOR__CUDA__STRICT", "true")
        .build();
    run.assert_failure();
    assert!(
        run.stderr.contains(
            "reductions/unmeasured: not measured: results/reductions/unmeasured.json does not exist"
        ),
        "{}",
        run.stderr
    );
}

// Expected failures are not failures: a strict build of fresh results passes.
#[test]
fn strict_build_accepts_expected_failures() {
    BookTest::from_fixture("fresh")
        .env("CUDA_MEASURED_STRICT", "true")
        .build()
        .assert_success();
}

// on-failure = "bail" fails the build on malformed examples, listing them all.
#[test]
fn bail_fails_on_malformed_examples() {
    let run = BookTest::from_fixture("malformed")
        .env("MDBOOK_PREPROCESSOR__CUDA__ON_FAILURE", "bail")
        .build();
    run.assert_failure();
    assert!(
        run.stderr.contains("on-failure = \"bail\": 12 malformed"),
        "{}",
        run.stderr
    );
}

// Strict builds also fail on figures in prose that are not measured.
#[test]
fn strict_build_fails_on_unmeasured_directives() {
    let run = BookTest::from_fixture("directives")
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    run.assert_failure();
    let want = "src/prose.md:10: {{#measured reductions/stride time 2^24}}: `reductions/stride` does not declare N = 2^24: its declared sizes are 2^20, 2^28";
    assert!(
        run.stderr.contains(want),
        "stderr lacks {want:?}:\n{}",
        run.stderr
    );
}
