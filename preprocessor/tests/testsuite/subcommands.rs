//! The `mdbook-cuda` subcommands and mdBook's other entry points.

use crate::book_test::BookTest;

// mdBook asks `supports` before every build; every renderer is handled.
#[test]
fn supports_every_renderer() {
    let test = BookTest::from_fixture("fresh");
    for renderer in ["html", "markdown", "test", "epub"] {
        test.mdbook_cuda(&["supports", renderer]).assert_success();
    }
}

// `status` lists each example's state and fails when a strict build would.
#[test]
fn status_lists_states() {
    let stale = BookTest::from_fixture("stale").mdbook_cuda(&["status"]);
    stale.assert_failure();
    assert!(
        stale
            .stdout
            .contains("stale  reductions/stride  src/stale.md:5"),
        "{}",
        stale.stdout
    );
    let fresh = BookTest::from_fixture("fresh").mdbook_cuda(&["status"]);
    fresh.assert_success();
    assert!(
        fresh
            .stdout
            .contains("current (expected failure)  reductions/racy"),
        "{}",
        fresh.stdout
    );
}

// `check` reports examples that cannot be resolved, without needing NVRTC.
#[test]
fn check_reports_unresolvable_examples() {
    let test = BookTest::from_fixture("malformed");
    let run = test.mdbook_cuda(&["check", "--book", &test.root().to_string_lossy()]);
    run.assert_failure();
    assert!(run.stdout.contains("FAIL  ?"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("src/mistakes.md:16: kernels/reductions/nope.cu:1"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("10 example(s) checked for sm_90"),
        "{}",
        run.stdout
    );
}

// `mdbook test` (rustdoc on Rust blocks) is not broken by CUDA examples.
#[test]
fn mdbook_test_still_works() {
    BookTest::from_fixture("fresh")
        .mdbook(&["test"])
        .assert_success();
}

// A command that fails for the author prints `error:` lines, the cause on
// a line of its own, and no backtrace even with RUST_BACKTRACE set.
#[test]
fn errors_are_lines_not_backtraces() {
    let test = BookTest::from_fixture("fresh").env("RUST_BACKTRACE", "1");
    let run = test.mdbook_cuda(&["check", "--book", "/nonexistent/book"]);
    run.assert_failure();
    assert!(
        run.stderr.starts_with(
            "mdbook-cuda: error: no book at /nonexistent/book\n  caused by: No such file or directory"
        ),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.to_lowercase().contains("backtrace"),
        "{}",
        run.stderr
    );
}
