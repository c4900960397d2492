use super::*;
use crate::directives::Directive;
use crate::test_support::Book;
use crate::values::{Value, evaluate, report_awaits_measuring};
use cuda_measured_core::size::Size;

fn text_of(value: Value) -> String {
    match value {
        Value::Figure { text, .. } => text,
        other => panic!("not a figure: {other:?}"),
    }
}

// A current profile gives its counter; one of earlier code, of another
// size, without the counter or not collected says so, and waits for
// the GPU machine in an author's build.
#[test]
fn profiles_are_figures_only_when_current() {
    let book = Book::new();
    let profile = |metric: &str, size: u64| Directive::Profile {
        id: "fast".into(),
        metric: metric.into(),
        size: Size(size).into(),
    };
    let dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
    let unmeasured = |d: &Directive| match evaluate(d, &book.results()) {
        Value::Unmeasured(why) => why,
        other => panic!("not unmeasured: {other:?}"),
    };
    assert!(unmeasured(&profile(dram, 1 << 28)).starts_with("no profile of `fast`"));
    assert!(report_awaits_measuring(
        &profile(dram, 1 << 28),
        &book.results()
    ));
    book.store_profile("fast", "earlier");
    assert!(unmeasured(&profile(dram, 1 << 28)).contains("earlier version of `fast`"));
    book.store_profile("fast", &book.key_of("fast"));
    assert_eq!(
        text_of(evaluate(&profile(dram, 1 << 28), &book.results())),
        "96.9%"
    );
    assert!(!report_awaits_measuring(
        &profile(dram, 1 << 28),
        &book.results()
    ));
    // A size the example does not declare is said, and does not wait.
    assert_eq!(
        unmeasured(&profile(dram, 1 << 20)),
        "`fast` does not declare N = 2^20: its declared sizes are 2^28"
    );
    assert!(!report_awaits_measuring(
        &profile(dram, 1 << 20),
        &book.results()
    ));
    // A misspelt id gets the id meant.
    let typo = Directive::Profile {
        id: "fsat".into(),
        metric: dram.into(),
        size: Size(1 << 28).into(),
    };
    assert_eq!(
        unmeasured(&typo),
        "no example with id `fsat` in this book; did you mean `fast`?"
    );
    assert!(unmeasured(&profile("smsp__inst_executed.sum", 1 << 28)).contains("did not collect"));
}

// The kind reads on its own: each reason a stored profile gives no figure
// is a typed error whose words are the build log's, and a metric is read
// by its short name or refused with the one meant.
#[test]
fn reasons_are_typed_and_worded_as_before() {
    let book = Book::new();
    let n = Dims::n(1 << 28);
    let missing = values("fast", "dram__throughput", n, &book.results()).unwrap_err();
    assert!(
        matches!(missing, ProfileError::NotCollected { .. }),
        "{missing:?}"
    );
    assert!(
        missing
            .to_string()
            .starts_with("no profile of `fast` was collected (not measured: results/profile/"),
        "{missing}"
    );
    book.store_profile("fast", "earlier");
    let earlier = values("fast", "dram__throughput", n, &book.results()).unwrap_err();
    assert!(
        matches!(earlier, ProfileError::Earlier { .. }),
        "{earlier:?}"
    );
    assert!(awaits("fast", "dram__throughput", n, &book.results()));
    assert!(!awaits("nope", "dram__throughput", n, &book.results()));
    assert_eq!(
        parse_metric("dram").ok(),
        cuda_measured_core::profile::metric_named("dram")
    );
    assert_eq!(
        parse_metric("dramm").unwrap_err().to_string(),
        "`dramm` is not a profiler metric; did you mean `dram`?"
    );
}

// `{{#profile ID stalls SIZE}}` names the kernel's leading stall reasons,
// most cycles first (`selected`, the issuing cycle, left out), out of the
// cycles between two issued instructions. A current profile collected
// without --stalls says how to collect them and waits for the GPU machine
// in an author's build; one with them does not wait.
#[test]
fn stalls_name_the_leading_reasons() {
    let book = Book::new();
    let stalls = Directive::Profile {
        id: "fast".into(),
        metric: parse_metric("stalls").unwrap(),
        size: Size(1 << 28).into(),
    };
    book.store_profile("fast", &book.key_of("fast"));
    match evaluate(&stalls, &book.results()) {
        Value::Unmeasured(why) => assert!(why.contains("cuda-runner profile --stalls"), "{why}"),
        other => panic!("not unmeasured: {other:?}"),
    }
    assert!(report_awaits_measuring(&stalls, &book.results()));
    let reason = |r: &str, v: f64| {
        (
            cuda_measured_core::profile::stall_metric(r),
            // Nsight Compute's unit for cycles stalled per issued
            // instruction, which a page must not print (`14.25 inst`).
            serde_json::json!({"unit": "inst", "value": v}),
        )
    };
    let mut metrics: serde_json::Map<String, serde_json::Value> = [
        reason("long_scoreboard", 2.5),
        reason("lg_throttle", 14.25),
        reason("selected", 1.0),
        reason("barrier", 3.0),
        reason("wait", 1.5),
        reason("membar", 0.0),
        reason("short_scoreboard", 0.75),
    ]
    .into_iter()
    .collect();
    metrics.insert(
        cuda_measured_core::profile::ISSUE_INTERVAL.into(),
        serde_json::json!({"unit": "", "value": 23.0}),
    );
    book.store_profile_metrics("fast", &book.key_of("fast"), metrics.into());
    assert_eq!(
        text_of(evaluate(&stalls, &book.results())),
        "lg throttle 14.2, barrier 3.0, long scoreboard 2.5, wait 1.5 of 23.0 cycles between issues"
    );
    assert!(!report_awaits_measuring(&stalls, &book.results()));
    let one = Directive::Profile {
        id: "fast".into(),
        metric: parse_metric("stall_lg_throttle").unwrap(),
        size: Size(1 << 28).into(),
    };
    assert_eq!(text_of(evaluate(&one, &book.results())), "14.25");
}
