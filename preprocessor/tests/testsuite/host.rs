//! `{{#host}}`: the host programs in three tabs with what they printed,
//! and the builds a missing, stale or misnamed run fails.

use crate::book_test::BookTest;

/// The folder of the fixture's host records, relative to its root.
const RUNS: &str = "results/host/exercise/reduction/stage3_solution";

// Three current runs: three tabs, each with its program, command, output
// and check; the first tab checked; the code's blank line kept inside the
// HTML block.
#[test]
fn host_programs_render_as_tabs() {
    BookTest::snapshot_fixture("host");
}

// Other renderers get three headed sections.
#[test]
fn markdown_renderer_gets_three_sections() {
    let test = BookTest::from_fixture("host").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    insta::assert_snapshot!("host__markdown", test.read("book/host.md"));
}

// Current runs pass the strict build.
#[test]
fn current_runs_pass_the_strict_build() {
    BookTest::from_fixture("host")
        .env("CUDA_MEASURED_STRICT", "1")
        .build()
        .assert_success();
}

/// Sets `field` of the record of `language` to `value`.
fn set(test: &BookTest, language: &str, field: &str, value: serde_json::Value) {
    let path = test.root().join(format!("{RUNS}/{language}.json"));
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record[field] = value;
    std::fs::write(&path, record.to_string()).unwrap();
}

/// The fixture with a failed C++ run, a Python program changed since its
/// run and no Rust run.
fn with_every_state() -> BookTest {
    let test = BookTest::from_fixture("host");
    set(&test, "cuda", "pass", false.into());
    set(&test, "cuda", "exit_code", 1.into());
    set(
        &test,
        "cuda",
        "output",
        "sum 1048576.000000, double sum on the CPU 2097070.802469, relative error 5.00e-01 (tolerance 4.88e-04): WRONG".into(),
    );
    let program = test.root().join("bench/host/host_sum.py");
    let text = std::fs::read_to_string(&program).unwrap();
    std::fs::write(&program, format!("{text}# changed\n")).unwrap();
    std::fs::remove_file(test.root().join(format!("{RUNS}/rust.json"))).unwrap();
    test
}

// A failed run is shown failed (it is evidence, not a build problem); a
// run of an earlier program is stale and a missing one not run yet: both
// fail the strict build, naming the file and the GPU session's stage, and
// wait in the author's build.
#[test]
fn failed_stale_and_missing_runs() {
    let strict = with_every_state().env("CUDA_MEASURED_STRICT", "1").build();
    strict.assert_failure();
    for want in [
        "results/host/exercise/reduction/stage3_solution/python.json was run with an earlier version of bench/host/host_sum.py; run `bench/gpu-session.sh OUTDIR host` on a GPU machine and commit results/host/",
        "not run yet: results/host/exercise/reduction/stage3_solution/rust.json does not exist; run `bench/gpu-session.sh OUTDIR host` on a GPU machine",
    ] {
        assert!(
            strict.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            strict.stderr
        );
    }
    assert!(!strict.stderr.contains("cuda.json"), "{}", strict.stderr);
    let test = with_every_state().env("CUDA_MEASURED_STRICT", "author");
    test.build().assert_success();
    insta::assert_snapshot!("host__states", test.main_html("host.html"));
}

// Records of earlier code are stale.
#[test]
fn runs_of_earlier_code_are_stale() {
    let test = BookTest::from_fixture("host").env("CUDA_MEASURED_STRICT", "1");
    set(&test, "cuda", "key", "an-earlier-key".into());
    let run = test.build();
    run.assert_failure();
    assert!(
        run.stderr.contains("[cuda] src/host.md:6: {{#host exercise/reduction/stage3_solution 2^22}}: results/host/exercise/reduction/stage3_solution/cuda.json was run on an earlier version of `exercise/reduction/stage3_solution`"),
        "{}",
        run.stderr
    );
}

// A size the example does not declare, an unknown id, a directive inside a
// sentence and a program that cannot be read are errors at their line;
// even the author's build fails on them.
#[test]
fn mistakes_are_errors_at_their_line() {
    let test = BookTest::from_fixture("host").env("CUDA_MEASURED_STRICT", "author");
    std::fs::write(
        test.root().join("src/host.md"),
        "# Host\n\n{{#host exercise/reduction/stage3_solution 2^20}}\n\nSee {{#host exercise/reduction/stage3_solution 2^22}} here.\n\n{{#host exercise/reduction/stage3_solutoin 2^22}}\n\n```cuda run file=exercise/reduction/stage3_solution.cu\n```\n",
    )
    .unwrap();
    let run = test.build();
    run.assert_failure();
    for want in [
        "[cuda] src/host.md:3: {{#host exercise/reduction/stage3_solution 2^20}}: `exercise/reduction/stage3_solution` does not declare N = 2^20: its declared sizes are 2^22",
        "[cuda] src/host.md:5: {{#host exercise/reduction/stage3_solution 2^22}}: {{#host}} is a block of its own: write it alone on its line",
        "[cuda] src/host.md:7: {{#host exercise/reduction/stage3_solutoin 2^22}}: no example with id `exercise/reduction/stage3_solutoin` in this book; did you mean `exercise/reduction/stage3_solution`?",
    ] {
        assert!(
            run.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            run.stderr
        );
    }
    let test = BookTest::from_fixture("host").env("CUDA_MEASURED_STRICT", "author");
    std::fs::remove_file(test.root().join("bench/host/host_sum.py")).unwrap();
    let run = test.build();
    run.assert_failure();
    assert!(
        run.stderr.contains("[cuda] src/host.md:6: {{#host exercise/reduction/stage3_solution 2^22}}: bench/host/host_sum.py cannot be read ("),
        "{}",
        run.stderr
    );
}
