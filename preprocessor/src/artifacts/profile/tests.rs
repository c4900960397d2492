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
    assert!(awaits("fast", n, &book.results()));
    assert!(!awaits("nope", n, &book.results()));
    assert_eq!(
        parse_metric("dram").ok(),
        cuda_measured_core::profile::metric_named("dram")
    );
    assert_eq!(
        parse_metric("dramm").unwrap_err().to_string(),
        "`dramm` is not a profiler metric; did you mean `dram`?"
    );
}
