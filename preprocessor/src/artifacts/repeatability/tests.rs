use super::*;
use crate::directives::Directive;
use crate::test_support::Book;
use crate::values::{Value, evaluate};

// A repeatability report is current while the method and every
// compared example's key are; otherwise it says why, and fails strict.
#[test]
fn repeatability_staleness_follows_method_and_keys() {
    let book = Book::new();
    let now = cuda_measured_core::METHOD_VERSION;
    let (fast, slow) = (book.key_of("fast"), book.key_of("slow"));
    let row = |id: &str| serde_json::json!({"example": id, "n": 1048576, "first_us": 30.0, "second_us": 30.3, "diff_pct": 1.0});
    let cases = [
        (
            "current",
            serde_json::json!(now),
            serde_json::json!({"fast": fast, "slow": slow}),
            vec![row("fast"), row("slow")],
            None,
        ),
        (
            // Rows of a swept example are named by their value
            // (`ID@NAME=VALUE`); its key is the example's.
            "current, rows of values",
            serde_json::json!(now),
            serde_json::json!({"fast": fast}),
            vec![row("fast@STRIDE=1"), row("fast@STRIDE=2")],
            None,
        ),
        (
            "old method",
            serde_json::json!(now - 1),
            serde_json::json!({"fast": fast}),
            vec![row("fast")],
            Some(format!(
                "the measuring method changed from v{} to v{now} since it was measured",
                now - 1
            )),
        ),
        (
            "changed and gone",
            serde_json::json!(now),
            serde_json::json!({"fast": "an-old-key", "slow": slow, "gone": "k"}),
            vec![row("fast"), row("gone")],
            Some(
                "the code of fast changed since it was measured; gone is no longer a runnable example of this book"
                    .to_string(),
            ),
        ),
        (
            "before method and keys",
            serde_json::Value::Null,
            serde_json::Value::Null,
            vec![row("fast")],
            Some(format!(
                "written before reports recorded the measuring method (now v{now}) and the keys of the examples"
            )),
        ),
    ];
    std::fs::create_dir_all(book.dir.path().join("results")).unwrap();
    for (case, method, keys, rows, want) in cases {
        let mut report = serde_json::json!({
            "gpu": "NVIDIA H200", "measured_at": "2026-05-01T12:00:00Z", "rows": rows,
            "max_abs_diff_pct_over_floor": 3.5, "goal_met": false
        });
        if !method.is_null() {
            report["method_version"] = method;
            report["keys"] = keys;
        }
        std::fs::write(
            book.dir.path().join("results/repeatability.json"),
            report.to_string(),
        )
        .unwrap();
        let value = evaluate(&Directive::Repeatability, &book.results());
        let Value::Repeatability(r) = &value else {
            panic!("{case}: {value:?}")
        };
        assert!(!r.report.goal_met, "{case}");
        assert_eq!(r.stale, want, "{case}");
        assert_eq!(r.file, "results/repeatability.json");
        assert_eq!(
            value.problem(),
            want.map(|w| format!(
                "results/repeatability.json: {w}; run bench/gpu-session.sh on a GPU machine"
            )),
            "{case}"
        );
    }
}

// The kind reads on its own: a missing report is the stored file's
// reason, named as the status page names it.
#[test]
fn missing_report_alone() {
    let book = Book::new();
    assert_eq!(
        super::evaluate(&book.results()),
        Err(Shown::Unmeasured(
            "not measured: results/repeatability.json does not exist; run bench/gpu-session.sh on a GPU machine".into()
        ))
    );
    assert!(!awaits(&book.results()));
    let file = stored_file(&book.stored);
    assert_eq!(
        (file.kind, file.rel.as_str(), file.made),
        (Kind::Repeatability, RELATIVE_PATH, None)
    );
}
