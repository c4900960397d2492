use super::*;
use crate::directives::Directive;
use crate::test_support::Book;
use crate::values::{Value, evaluate};

// A comparison is current only while its kernel's key and record are.
#[test]
fn peers_staleness_follows_the_kernel() {
    let book = Book::new();
    let cases = [
        ("current", "fast", book.key_of("fast"), None),
        (
            "changed",
            "fast",
            "an-old-key".to_string(),
            Some("measured for an earlier version of fast"),
        ),
        (
            "record_stale",
            "old",
            book.key_of("old"),
            Some("measured for an earlier version of old"),
        ),
        (
            "gone",
            "gone",
            "k".to_string(),
            Some("gone is not an example of this book"),
        ),
    ];
    for (problem, ours, key, want) in cases {
        book.store_peers(problem, ours, &key);
        let value = evaluate(
            &Directive::Peers {
                problem: problem.into(),
            },
            &book.results(),
        );
        let Value::Peers(peers) = &value else {
            panic!("{problem}: {value:?}")
        };
        assert_eq!(peers.stale.as_deref(), want, "{problem}");
        assert_eq!(peers.file, format!("results/peers/{problem}.json"));
        match want {
            None => assert_eq!(value.problem(), None),
            Some(w) => assert_eq!(
                value.problem().unwrap(),
                format!(
                    "results/peers/{problem}.json: {w}; run bench/gpu-session.sh on a GPU machine"
                )
            ),
        }
    }
}

// The kind reads on its own, without the directive dispatch: a missing
// comparison is the stored file's reason, a current one has no problem,
// and the argument is one problem name that stays in the peers folder.
#[test]
fn evaluates_and_parses_alone() {
    let book = Book::new();
    let missing = evaluate_peers("sum_f32", &book);
    assert_eq!(
        missing,
        Err(Shown::Unmeasured(
            "not measured: results/peers/sum_f32.json does not exist; run bench/gpu-session.sh on a GPU machine".into()
        ))
    );
    book.store_peers("sum_f32", "fast", &book.key_of("fast"));
    let view = evaluate_peers("sum_f32", &book).unwrap();
    assert_eq!((view.problem(), view.stale), (None, None));
    assert!(!awaits("sum_f32", &book.results()));
    let file = stored_file("sum_f32", &book.stored);
    assert_eq!(
        (file.kind, file.rel.as_str(), file.made.map(|m| m.0)),
        (
            Kind::Peers,
            "peers/sum_f32.json",
            Some("2026-05-01T12:00:00Z".into())
        )
    );
    assert_eq!(parse(&["sum_f32"]), Ok("sum_f32".into()));
    assert_eq!(parse(&["../x"]), Err(ArgsError));
    assert_eq!(
        ArgsError.to_string(),
        "write `{{#peers PROBLEM}}` (one problem name such as sum_f32, read from results/peers/PROBLEM.json)"
    );
}

fn evaluate_peers(problem: &str, book: &Book) -> Result<Peers, Shown> {
    super::evaluate(problem, &book.results())
}

// A comparison not made yet waits for the GPU session only when
// bench/peers/peers.toml lists it and a kernel it compares waits to be
// measured too; one not listed, or of kernels already measured, does not.
#[test]
fn a_missing_comparison_waits_for_its_new_kernel() {
    let book = Book::new();
    let peer = "reference = \"t\"\n[[PROBLEM.peer]]\nkey = \"t\"\nlabel = \"T\"\nshort = \"T\"\ncolour = \"#123456\"\n";
    let toml = format!(
        "[new_kernel]\nours = \"old\"\n{}\n[measured_kernel]\nours = [\"fast\"]\n{}",
        peer.replace("PROBLEM", "new_kernel"),
        peer.replace("PROBLEM", "measured_kernel")
    );
    let path = book.dir.path().join("bench/peers/peers.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, toml).unwrap();
    assert!(awaits("new_kernel", &book.results()));
    assert!(!awaits("measured_kernel", &book.results()));
    assert!(!awaits("unlisted", &book.results()));
}
