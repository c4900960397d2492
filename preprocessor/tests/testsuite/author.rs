//! The author's check without a GPU (`CUDA_MEASURED_STRICT=author`, what
//! `scripts/test --author` builds with): examples that only wait to be
//! measured pass, everything else a strict build refuses still fails.

use crate::book_test::BookTest;

// A book with one example not measured yet (and a figure of it) and one
// broken example: the author's build fails on the broken one only.
#[test]
fn author_build_fails_only_on_the_broken_example() {
    let run = BookTest::from_fixture("author")
        .env("CUDA_MEASURED_STRICT", "author")
        .build();
    run.assert_failure();
    assert!(
        run.stderr.contains(
            "[cuda] src/draft.md:10: kernels/reductions/tree.cu:1: cannot read the kernel file"
        ),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("reductions/stride.json does not exist"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "[cuda] 2 example(s) or figure(s) wait to be measured on a GPU, which the author's check accepts"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("author build: 1 problem(s), listed above (1 malformed)"),
        "{}",
        run.stderr
    );
    // A full strict build refuses the example not measured too.
    let strict = BookTest::from_fixture("author")
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    strict.assert_failure();
    assert!(
        strict
            .stderr
            .contains("strict build: 3 problem(s), listed above (1 malformed)"),
        "{}",
        strict.stderr
    );
}

// Missing and stale examples pass an author's build, set in book.toml or
// the environment; failed ones (not as declared) do not.
#[test]
fn author_build_accepts_what_waits_for_a_gpu() {
    BookTest::from_fixture("missing")
        .env("MDBOOK_PREPROCESSOR__CUDA__STRICT", "author")
        .build()
        .assert_success();
    BookTest::from_fixture("stale")
        .env("CUDA_MEASURED_STRICT", "author")
        .build()
        .assert_success();
    let status = BookTest::from_fixture("status")
        .env("CUDA_MEASURED_STRICT", "author")
        .build();
    status.assert_failure();
    for refused in ["reductions/wrong: wrong", "src/part/more.md:15"] {
        assert!(status.stderr.contains(refused), "{}", status.stderr);
    }
    for accepted in ["reductions/old: stale", "reductions/new: not measured"] {
        assert!(!status.stderr.contains(accepted), "{}", status.stderr);
    }
}

// `mdbook-cuda status` judges as an author build when asked to.
#[test]
fn status_command_in_author_mode() {
    let test = BookTest::from_fixture("missing").env("CUDA_MEASURED_STRICT", "author");
    test.mdbook_cuda(&["status"]).assert_success();
    BookTest::from_fixture("missing")
        .mdbook_cuda(&["status"])
        .assert_failure();
}

// Editing a measured kernel makes the peers and repeatability reports that
// cover it stale; the author's build accepts that (the reports wait for
// the same GPU run as the kernel), a full strict build does not.
#[test]
fn reports_stale_only_through_an_edited_kernel_wait_for_the_gpu() {
    let edit = |test: &BookTest| {
        let kernel = test.root().join("kernels/reductions/fast_reduce.cu");
        let mut text = std::fs::read_to_string(&kernel).unwrap();
        text.push_str("// an edit since the last measurement\n");
        std::fs::write(&kernel, text).unwrap();
    };
    let author = BookTest::from_fixture("comparison").env("CUDA_MEASURED_STRICT", "author");
    edit(&author);
    // The fixture's one other problem is a comparison never measured
    // ({{#peers scan_f32}}): that does not wait for a GPU run of an example.
    let run = author.build();
    run.assert_failure();
    assert!(
        run.stderr.contains("author build: 1 problem(s)")
            && run.stderr.contains("{{#peers scan_f32}}: not measured"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("changed since it was measured")
            && !run.stderr.contains("measured for an earlier version"),
        "{}",
        run.stderr
    );
    let strict = BookTest::from_fixture("comparison").env("CUDA_MEASURED_STRICT", "1");
    edit(&strict);
    let run = strict.build();
    run.assert_failure();
    assert!(
        run.stderr
            .contains("the code of reductions/fast_reduce changed since it was measured"),
        "{}",
        run.stderr
    );
}
