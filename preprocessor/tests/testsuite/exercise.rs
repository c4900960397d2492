//! Staged exercises: `{{#exercise TRACK/STAGE}}` laid out from a stage
//! file, with starter and solution side by side from the store.

use crate::book_test::BookTest;

// A stage renders its text, starter, pitfall kernel, folded hints and
// solution, and the side-by-side table in which every gate is passed,
// failed or not measured; a stage whose starter is the previous solution
// lists it without a second panel; a misplaced or unknown stage is an
// error box.
#[test]
fn stages_render_from_the_store() {
    BookTest::snapshot_fixture("exercise");
}

// A solution that fails its gate fails an author build at the gate's
// line, and a figure in a stage's text at its own line; gates that only
// wait for a profile do not, and are counted as waiting; the stage's
// kernels are examples of the book.
#[test]
fn failing_gates_fail_the_author_build() {
    let test = BookTest::from_fixture("exercise").env("CUDA_MEASURED_STRICT", "author");
    let run = test.build();
    run.assert_failure();
    let stderr = &run.stderr;
    for line in [
        "[cuda] kernels/exercise/sum/stage2.toml:9: {{#exercise sum/stage2}}: the solution `exercise/sum/halves` fails its gate `at least 1.5× as fast as stage 1's solution (one session)`: measured 1.34×; change the solution or the gate",
        "[cuda] kernels/exercise/sum/stage1.toml:10: {{#measured exercise/sum/strat time 2^22}}: no example with id `exercise/sum/strat` in this book; did you mean `exercise/sum/start`?",
        "[cuda] src/exercise.md:9: {{#exercise sum/stage1}}: a stage is a block of its own: write the directive alone on its line",
        "[cuda] src/exercise.md:11: no exercise stage `sum/stage9`: stages are files kernels/exercise/TRACK/STAGE.toml, named TRACK/STAGE; did you mean `sum/stage1`?",
    ] {
        assert!(stderr.contains(line), "{line}\nnot in\n{stderr}");
    }
    assert!(
        stderr.contains("[cuda] 1 example(s) or figure(s) wait to be measured on a GPU")
            && !stderr.contains("instructions executed"),
        "the gate that waits for a profile is counted, not listed: {stderr}"
    );
    let status = test.mdbook_cuda(&["status"]);
    for id in [
        "exercise/sum/start",
        "exercise/sum/oops",
        "exercise/sum/halves",
    ] {
        assert!(status.stdout.contains(id), "{id} not in {}", status.stdout);
    }
}
