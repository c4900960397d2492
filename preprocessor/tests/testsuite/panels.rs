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
// as written; the build still succeeds and names each one on stderr. A word
// a letter off (a header key, a fence word, an attribute, a directive, a
// field, an id) names the one meant.
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
        "[cuda] src/mistakes.md:29: unknown key `sises`; did you mean `sizes`?\n",
        "[cuda] src/mistakes.md:44: duplicate example id `twice`, also used at src/mistakes.md:41",
        "[cuda] src/mistakes.md:57: {{#measured twice speed 2^20}}: `speed` is not a figure; did you mean `spread`?\n",
        "[cuda] src/mistakes.md:61: unknown word `rn` in the block's first line; did you mean `run`? Write ```cuda run file=reductions/stride.cu for a runnable example, or ```cuda alone for plain code\n",
        "[cuda] src/mistakes.md:66: `file=reductions/stride.cu` is an attribute of runnable examples, but this block has no `run`: write ```cuda run file=reductions/stride.cu for a runnable example, or ```cuda alone for plain code\n",
        "[cuda] src/mistakes.md:71: unknown attribute `fle=reductions/stride.cu` in a `cuda run` block; did you mean `file=reductions/stride.cu`?\n",
        "[cuda] src/mistakes.md:80: {{#mesured twice time 2^20}}: unknown directive `{{#mesured}}`; did you mean `{{#measured ID FIELD SIZE}}`?\n",
        "[cuda] src/mistakes.md:81: {{#measured twice tme 2^20}}: `tme` is not a figure; did you mean `time`?\n",
    ] {
        assert!(
            run.stderr.contains(line),
            "stderr lacks {line:?}:\n{}",
            run.stderr
        );
    }
    // ```cuda alone stays a plain listing; an id or size that is not the
    // book's renders as not measured, saying which one was meant.
    let html = test.main_html("mistakes.html");
    assert!(
        html.contains("<code class=\"language-cuda\">__global__ void plain() {}"),
        "{html}"
    );
    for title in [
        "title=\"no example with id `twise` in this book; did you mean `twice`?\"",
        "title=\"`twice` does not declare N = 2²⁴: its declared sizes are 2²⁰, 2²⁸\"",
    ] {
        assert!(html.contains(title), "no {title} in:\n{html}");
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

/// The HTML of the panel of example `id`, up to the next heading.
fn panel<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("data-example=\"{id}\""))
        .unwrap_or_else(|| panic!("no panel for {id}"));
    let rest = &html[start..];
    &rest[..rest.find("<h2").unwrap_or(rest.len())]
}

// The hard cases of issue 7, measured on an H200: a NaN result is `wrong`
// and says "got NaN" (it used to be a fault), so is a thread that returns
// before filling its shared slot (shared memory is poisoned), too much
// shared memory is refused before launch with the limit and the header
// line, a printf flood passes with a capped log, and an include of
// /etc/passwd is refused before anything reads it.
#[test]
fn planted_hard_cases_render_the_right_status_and_message() {
    let test = BookTest::from_fixture("planted");
    test.build().assert_success();
    let html = test.main_html("planted.html");
    for id in ["planted/writes_nan", "planted/early_return"] {
        let p = panel(&html, id);
        assert!(p.contains("data-status=\"wrong\""), "{p}");
        assert!(
            p.contains("wrong at n = 1: expected exactly 4, got NaN"),
            "{p}"
        );
    }
    let shared = panel(&html, "planted/too_much_shared");
    assert!(shared.contains("data-status=\"launch-error\""));
    assert!(shared.contains("asks for 300000 B of dynamic shared memory; NVIDIA H200 allows at most 232448 B (227 KiB) per block"));
    assert!(shared.contains("lower `shared` at kernels/planted/too_much_shared.cu:9"));
    let flood = panel(&html, "planted/printf_flood");
    assert!(flood.contains("data-status=\"pass\""));
    assert!(flood.contains("<details class=\"cm-log\"><summary>Log</summary>"));
    assert!(flood.contains("device printf output (first 16 KiB of "));
    assert!(
        flood.len() < 24 * 1024,
        "the log is capped: {} bytes",
        flood.len()
    );
    assert!(html.contains("kernels/planted/include_outside.cu:12: `#include &quot;/etc/passwd&quot;` is outside the book")
        || html.contains("kernels/planted/include_outside.cu:12: `#include \"/etc/passwd\"` is outside the book"));
    assert!(
        !html.contains("root:x:0:0"),
        "the file's lines must never reach the page"
    );
}

// The planted faults of issue 20 name their cause on the page once
// measured on the H200: a trap (the driver says only "unspecified launch
// failure"), a failed assert, a recursion past the stack (the driver says
// "illegal memory access") and a 1 MiB local array (the driver would say
// "invalid argument"; the runner refuses it before launch). An example
// whose record is not committed yet renders as not measured, and its
// check is skipped and counted.
#[test]
fn planted_faults_name_their_cause() {
    let cases = [
        (
            "traps",
            "fault",
            "the kernel executed `__trap()` (`sum_trap` can reach a trap",
        ),
        (
            "asserts",
            "fault",
            "a device-side `assert` in `sum_assert` failed",
        ),
        (
            "deep_recursion",
            "fault",
            "stack overflow: kernel `sum_recursive` recurses",
        ),
        (
            "big_local",
            "launch-error",
            "kernel `sum_big_local` needs 1 MiB of local memory per thread",
        ),
    ];
    let records = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/planted/results/planted");
    let test = BookTest::from_fixture("planted");
    test.build().assert_success();
    let html = test.main_html("planted.html");
    let mut skipped = Vec::new();
    for (name, status, cause) in cases {
        let p = panel(&html, &format!("planted/{name}"));
        if !records.join(format!("{name}.json")).is_file() {
            assert!(p.contains("not measured yet"), "{p}");
            skipped.push(name);
            continue;
        }
        assert!(p.contains(&format!("data-status=\"{status}\"")), "{p}");
        assert!(p.contains(cause), "no `{cause}` in:\n{p}");
    }
    if !skipped.is_empty() {
        eprintln!(
            "planted_faults_name_their_cause: skipped {} of {} (no committed record yet: {}); measure them on the GPU",
            skipped.len(),
            cases.len(),
            skipped.join(", ")
        );
    }
}
