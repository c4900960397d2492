//! Messages about text after or inside an mdBook `{{#include}}` name the
//! line an author sees in the file, not the line of the expanded text
//! mdBook hands over.

use crate::book_test::BookTest;

// Two includes above them bring in eleven lines for two, yet a directive,
// an inline example's header error and a kernel block are placed at
// their own lines of the chapter file; a directive that came from an
// included file is placed in that file, with the line of its include.
#[test]
fn messages_name_the_lines_of_the_files_written() {
    let run = BookTest::from_fixture("includes")
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    run.assert_failure();
    for want in [
        "[cuda] src/chapter.md:15: {{#measured reductions/strde time 2^20}}: no example with id `reductions/strde` in this book; did you mean `reductions/stride`?",
        "[cuda] src/parts/note.md:3 (included at src/chapter.md:17): {{#measured reductions/stride time 2^24}}: `reductions/stride` does not declare N = 2^24",
        "[cuda] src/chapter.md:24: unknown key `sises`",
        "[cuda] src/chapter.md:36: reductions/stride: not measured",
    ] {
        assert!(
            run.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            run.stderr
        );
    }
}

// `mdbook-cuda status` reads the chapters as a build does, includes
// expanded, and places their problems the same way.
#[test]
fn status_places_problems_as_the_build_does() {
    let run = BookTest::from_fixture("includes").mdbook_cuda(&["status"]);
    run.assert_failure();
    for want in [
        "src/chapter.md:15: {{#measured reductions/strde time 2^20}}",
        "src/parts/note.md:3 (included at src/chapter.md:17): {{#measured reductions/stride time 2^24}}",
        "not measured  reductions/stride  src/chapter.md:36",
    ] {
        assert!(
            run.stdout.contains(want),
            "stdout lacks {want:?}:\n{}",
            run.stdout
        );
    }
}

// `mdbook-cuda check` reports, without a GPU or the store, the directives
// that name an example the book lacks (with the id meant) or a size the
// example does not declare, at the lines a build names, and fails.
#[test]
fn check_reports_directives_naming_what_the_book_lacks() {
    let test = BookTest::from_fixture("includes");
    let run = test.mdbook_cuda(&["check", "--book", &test.root().to_string_lossy()]);
    run.assert_failure();
    for want in [
        "src/chapter.md:15: {{#measured reductions/strde time 2^20}}: no example with id `reductions/strde` in this book; did you mean `reductions/stride`?",
        "src/parts/note.md:3 (included at src/chapter.md:17): {{#measured reductions/stride time 2^24}}: `reductions/stride` does not declare N = 2^24: its declared sizes are 2^20, 2^28\n",
        "2 directive(s) cannot be read or name what the book does not have",
    ] {
        assert!(
            run.stdout.contains(want),
            "stdout lacks {want:?}:\n{}",
            run.stdout
        );
    }
}
