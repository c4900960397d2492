//! Quick mode, the author's preview on a GPU machine: an example without a
//! current record is measured in one process, its record is kept in
//! `.cuda-measured/quick/` (never in `results/`), its panel says it is a
//! quick measurement, and a strict build ignores it. A stand-in runner
//! (a Python script named by CUDA_MEASURED_RUNNER) answers the GPU probe
//! and measures at once, noting each process it is asked to be.

use crate::book_test::BookTest;
use std::os::unix::fs::PermissionsExt;

/// The stand-in `cuda-runner` ([`crate::fake_runner`]), noting
/// `process/processes` of each job in `calls` beside it.
fn fake_runner() -> String {
    crate::fake_runner::script(
        r#"    with open(os.path.join(os.path.dirname(sys.argv[0]), "calls"), "a") as f:
        f.write(f"{job['example']['id']} {job['process']}/{job['processes']}\n")
    with open(out, "w") as f:
        json.dump({"record": passing(job), "samples_us": []}, f)"#,
    )
}

// One process measures, the record lands in the quick folder and not in
// results/, the page says so, a second build measures nothing, a strict
// build does not accept the quick record, and a build without quick mode
// does not show it.
#[test]
fn quick_mode_measures_once_and_keeps_results_untouched() {
    let test = BookTest::from_fixture("missing");
    let runner = test.root().join("fake-runner");
    std::fs::write(&runner, fake_runner()).unwrap();
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let test = test
        .env("CUDA_MEASURED_RUNNER", &runner.to_string_lossy())
        .env("CUDA_MEASURED_COMPILE", "0")
        .env("CUDA_MEASURED_MODE", "auto")
        .env("CUDA_MEASURED_QUICK", "1");
    let calls = || std::fs::read_to_string(test.root().join("calls")).unwrap_or_default();

    test.build().assert_success();
    assert_eq!(
        calls(),
        "reductions/unmeasured 0/8\n",
        "one process, 1/8 of the budget"
    );
    let quick = test
        .root()
        .join(".cuda-measured/quick/reductions/unmeasured.json");
    let record: serde_json::Value =
        serde_json::from_str(&test.read(&quick.to_string_lossy())).unwrap();
    assert_eq!(record["quick"], true);
    assert!(
        !test
            .root()
            .join("results/reductions/unmeasured.json")
            .exists()
    );
    assert!(
        test.main_html("missing.html")
            .contains("Quick measurement for the preview")
    );

    test.build().assert_success();
    assert_eq!(
        calls().lines().count(),
        1,
        "a current quick record is not measured again"
    );

    let test = test.env("CUDA_MEASURED_MODE", "frozen");
    let strict = test.env("CUDA_MEASURED_STRICT", "1");
    let run = strict.build();
    run.assert_failure();
    assert!(
        run.stderr.contains("reductions/unmeasured"),
        "{}",
        run.stderr
    );
    // A quick record copied into results/ is never current there.
    let stored = strict.root().join("results/reductions/unmeasured.json");
    std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
    std::fs::copy(&quick, &stored).unwrap();
    let run = strict.build();
    run.assert_failure();
    assert!(run.stderr.contains("stale"), "{}", run.stderr);
    std::fs::remove_file(&stored).unwrap();
    // Without quick mode the page is built from results/ alone.
    let plain = strict
        .env("CUDA_MEASURED_STRICT", "0")
        .env("CUDA_MEASURED_QUICK", "0");
    plain.build().assert_success();
    assert!(
        !plain
            .main_html("missing.html")
            .contains("Quick measurement")
    );
}
