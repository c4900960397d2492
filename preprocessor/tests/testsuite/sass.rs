//! `{{#sass}}` and `{{#sass_count}}`: a stored listing rendered, and the
//! builds a missing, stale or misnamed listing fails.

use crate::book_test::BookTest;

// A current listing renders folded, the fold's rows highlighted and
// counted, and its counts read in prose; in a list it keeps its place.
#[test]
fn sass_listing_renders() {
    BookTest::snapshot_fixture("sass");
}

// Other renderers get the listing as text, the fold's rows marked `>`.
#[test]
fn markdown_renderer_gets_a_text_listing() {
    let test = BookTest::from_fixture("sass").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    insta::assert_snapshot!("sass__markdown", test.read("book/listing.md"));
}

/// The fixture with its listing's key replaced by one of earlier code.
fn with_stale_listing() -> BookTest {
    let test = BookTest::from_fixture("sass");
    let path = test
        .root()
        .join("results/sass/reductions/interleaved_tree.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut listing: serde_json::Value = serde_json::from_str(&text).unwrap();
    listing["key"] = "an-earlier-key".into();
    std::fs::write(&path, listing.to_string()).unwrap();
    test
}

// A listing of earlier code fails the strict build like a stale profile,
// naming the file and scripts/sass; the author's build accepts it, and the
// page greys it and says so.
#[test]
fn a_stale_listing_fails_the_strict_build_and_waits_in_the_authors() {
    let strict = with_stale_listing()
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    strict.assert_failure();
    let want = "[cuda] src/listing.md:6: {{#sass reductions/interleaved_tree anchor=fold}}: results/sass/reductions/interleaved_tree.json was made for an earlier version of `reductions/interleaved_tree`; run scripts/sass (no GPU needed) and commit results/sass/";
    assert!(strict.stderr.contains(want), "{}", strict.stderr);
    // The counts in prose are not given from a stale listing either.
    assert!(
        strict.stderr.contains(
            "src/listing.md:8: {{#sass_count reductions/interleaved_tree anchor=fold instructions}}"
        ),
        "{}",
        strict.stderr
    );
    let test = with_stale_listing().env("CUDA_MEASURED_STRICT", "author");
    test.build().assert_success();
    let html = test.main_html("listing.html");
    assert!(html.contains("cm-panel cm-sass cm-stale"), "{html}");
    assert!(
        html.contains("<span class=\"cm-sass-stale\">(stale)</span>"),
        "{html}"
    );
}

// A missing listing is not measured: strict fails, the author's build waits.
#[test]
fn a_missing_listing_waits_for_scripts_sass() {
    let test = BookTest::from_fixture("sass").env("CUDA_MEASURED_STRICT", "1");
    std::fs::remove_file(
        test.root()
            .join("results/sass/reductions/interleaved_tree.json"),
    )
    .unwrap();
    let run = test.build();
    run.assert_failure();
    assert!(
        run.stderr.contains("not measured: results/sass/reductions/interleaved_tree.json does not exist; run scripts/sass (no GPU needed)"),
        "{}",
        run.stderr
    );
    test.env("CUDA_MEASURED_STRICT", "author")
        .build()
        .assert_success();
}

// A kernel or anchor the example does not have, and a listing written
// inside a sentence, are errors at their line, with the word meant; even
// the author's build fails on them.
#[test]
fn unknown_kernels_and_anchors_are_errors_at_their_line() {
    let test = BookTest::from_fixture("sass").env("CUDA_MEASURED_STRICT", "author");
    std::fs::write(
        test.root().join("src/listing.md"),
        "# Listing\n\n{{#sass reductions/interleaved_tree reduce_interlaved}}\n\n{{#sass reductions/interleaved_tree anchor=fodl}}\n\nSee {{#sass reductions/interleaved_tree}} here.\n\n{{#sass reductions/interleavd_tree anchor=fold}}\n\n```cuda run file=reductions/interleaved_tree.cu\n```\n",
    )
    .unwrap();
    let run = test.build();
    run.assert_failure();
    for want in [
        "[cuda] src/listing.md:3: {{#sass reductions/interleaved_tree reduce_interlaved}}: `reductions/interleaved_tree` has no kernel `reduce_interlaved`; did you mean `reduce_interleaved`?",
        "[cuda] src/listing.md:5: {{#sass reductions/interleaved_tree anchor=fodl}}: `reductions/interleaved_tree` has no anchor `fodl` in kernels/reductions/interleaved_tree.cu; did you mean `fold`?",
        "[cuda] src/listing.md:7: {{#sass reductions/interleaved_tree}}: a listing is a block of its own: write {{#sass}} alone on its line",
        "[cuda] src/listing.md:9: {{#sass reductions/interleavd_tree anchor=fold}}: no example with id `reductions/interleavd_tree` in this book; did you mean `reductions/interleaved_tree`?",
    ] {
        assert!(
            run.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            run.stderr
        );
    }
}
