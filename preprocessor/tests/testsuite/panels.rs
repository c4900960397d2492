//! Results panels as a reader sees them, one fixture book per state.

use crate::book_test::BookTest;

// Fresh results render as pass and expected-failure panels after the code;
// plain cuda blocks and the list around an inline example stay as written.
#[test]
fn fresh_results() {
    BookTest::snapshot_fixture("fresh");
}

// A result stored for an earlier version of the kernel renders greyed, saying so.
#[test]
fn stale_result() {
    BookTest::snapshot_fixture("stale");
}

// An example without a stored result says it is not measured yet.
#[test]
fn missing_result() {
    BookTest::snapshot_fixture("missing");
}

// Malformed blocks become red panels with file:line, the fix and the block
// as written; the build still succeeds and names each one on stderr.
#[test]
fn malformed_blocks_render_error_panels() {
    let test = BookTest::from_fixture("malformed");
    let run = test.build();
    run.assert_success();
    for line in [
        "[cuda] src/mistakes.md:5: unknown attribute `ignore`",
        "[cuda] src/mistakes.md:10: an inline example needs an id",
        "[cuda] src/mistakes.md:16: kernels/reductions/nope.cu:1: cannot read the kernel file",
        "[cuda] src/mistakes.md:21: kernels/reductions/stride.cu:1: anchor `nope` is not in kernels/reductions/stride.cu",
        "[cuda] src/mistakes.md:27: the example header is not valid",
        "[cuda] src/mistakes.md:44: duplicate example id `twice`, also used at src/mistakes.md:41",
        "[cuda] src/mistakes.md:57: {{#measured twice speed 2^20}}: `speed` is not a figure",
    ] {
        assert!(
            run.stderr.contains(line),
            "stderr lacks {line:?}:\n{}",
            run.stderr
        );
    }
    insta::assert_snapshot!("malformed__mistakes", test.main_html("mistakes.html"));
}

// Renderers other than html get the same panel as a markdown table.
#[test]
fn markdown_renderer_gets_tables() {
    let test = BookTest::from_fixture("fresh").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    insta::assert_snapshot!("fresh__markdown", test.read("book/reductions.md"));
}

// Kernels planted to fail (compile error, out-of-bounds write, a kernel that
// never ends, a wrong answer) render as red panels with their status and
// log; the results were measured on a real GPU by a measuring build of this
// fixture book.
#[test]
fn planted_failures_render_their_status_and_log() {
    let test = BookTest::from_fixture("planted");
    test.build().assert_success();
    let html = test.main_html("planted.html");
    for status in ["compile-error", "fault", "timeout", "wrong"] {
        assert!(html.contains(status), "no `{status}` panel in:\n{html}");
    }
    assert!(
        html.contains("identifier &quot;scale&quot; is undefined")
            || html.contains("identifier \"scale\" is undefined")
    );
    assert!(html.contains("illegal memory access"));
    BookTest::snapshot_fixture("planted");
}
