use super::*;
use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::stored::StoredReports;
use crate::test_support::{KERNEL, catalog_of, settings_in};
use crate::values::Value;
use cuda_measured_core::sass::Instruction;

// `{{#sass}}` and `{{#sass_count}}` as their directives evaluate them.
fn evaluate(target: &SassTarget, results: &Results<'_>) -> Value {
    super::evaluate(target, results).map_or_else(Value::from, |view| Value::Sass(Box::new(view)))
}

fn count(target: &SassTarget, what: SassCount, results: &Results<'_>) -> Value {
    super::count(target, what, results).into()
}

/// A book whose chapter lists kernel file `r/tree.cu` (the test kernel,
/// its `tree` on line 11 inside anchor `body`), and its stored reports.
struct Book {
    _dir: tempfile::TempDir,
    results_dir: std::path::PathBuf,
    catalog: Catalog,
    outcomes: Vec<Outcome>,
    stored: StoredReports,
}

impl Book {
    fn new() -> Self {
        let (dir, settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let catalog = catalog_of(&settings, "```cuda run file=r/tree.cu\n```\n");
        let stored = StoredReports::new(&settings.results, "results");
        Book {
            results_dir: settings.results.clone(),
            _dir: dir,
            catalog,
            outcomes: vec![Outcome::Missing],
            stored,
        }
    }

    fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    fn key(&self) -> String {
        self.results().example("r/tree").unwrap().1.to_string()
    }

    /// Stores a listing of `r/tree` made with `key`, holding `kernels`.
    fn store(&self, key: &str, kernels: Vec<Kernel>) {
        self.store_schema(sass::SCHEMA_VERSION, key, kernels);
    }

    /// Stores a listing of format `schema`.
    fn store_schema(&self, schema: u32, key: &str, kernels: Vec<Kernel>) {
        let listing = Listing {
            schema,
            example: "r/tree".into(),
            key: key.into(),
            arch: "sm_90".into(),
            nvrtc: "13.0".into(),
            tool: "nvdisasm 13.5.37".into(),
            made_at: "2026-12-01T11:12:05Z".into(),
            kernels,
        };
        let path = self.results_dir.join("sass/r/tree.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string(&listing).unwrap()).unwrap();
    }
}

/// Kernel `name` with a modulo on line 11 (the anchor `body`) between
/// code of lines 10 and 12, ending in padding.
fn kernel(name: &str) -> Kernel {
    let lines: [(u32, &str); 12] = [
        (10, "S2R R6, SR_TID.X"),
        (11, "IADD3 R7, RZ, -R9, RZ"),
        (11, "I2F.U32.RP R0, R9"),
        (11, "MUFU.RCP R0, R0"),
        (11, "F2I.FTZ.U32.TRUNC.NTZ R3, R0"),
        (11, "IMAD.HI.U32 R3, R3, R7, RZ"),
        (11, "@!P2 LOP3.LUT R3, RZ, R9, RZ, 0x33, !PT"),
        (11, "@!P1 BRA `(.L_x_0)"),
        (12, "@P0 STS [R5], R3"),
        (12, "EXIT"),
        (12, "BRA `(.L_x_1)"),
        (12, "NOP"),
    ];
    Kernel {
        name: name.into(),
        registers: 10,
        shared: 1024,
        instructions: lines
            .iter()
            .enumerate()
            .map(|(k, &(line, text))| Instruction {
                file: Some("kernels/r/tree.cu".into()),
                line: Some(line),
                ..Instruction::new(16 * k as u32, text)
            })
            .collect(),
        ..Kernel::default()
    }
}

fn target(id: &str, kernel: Option<&str>, anchor: Option<&str>) -> SassTarget {
    SassTarget {
        id: id.into(),
        kernel: kernel.map(str::to_string),
        anchor: anchor.map(str::to_string),
    }
}

// A current listing shows its kernel with the anchor's lines counted:
// the modulo's six instructions, one predicated (its fix-up), and the
// branch apart; the padding is left out of every count.
#[test]
fn a_current_listing_counts_the_anchors_lines() {
    let book = Book::new();
    book.store(&book.key(), vec![kernel("tree")]);
    let value = evaluate(&target("r/tree", None, Some("body")), &book.results());
    let Value::Sass(view) = &value else {
        panic!("{value:?}")
    };
    assert_eq!(value.problem(), None);
    assert_eq!(view.region, Some(("body".into(), vec![(11, 11)])));
    assert_eq!(
        view.count_line(),
        "Highlighted, the 7 instructions compiled from line 11 (anchor `body`): 1 predicated, 1 branch, 6 in an integer division or modulo sequence."
    );
    assert_eq!(
        view.resources(),
        "10 registers, no stack (nothing spilled), 1024 B of static shared memory, 10 instructions (2 predicated)"
    );
    assert!(view.notes()[1].contains("the 2 instructions of padding"));
    assert!(!awaits_listing(
        &target("r/tree", None, None),
        &book.results()
    ));
    let count = |what| match count(
        &target("r/tree", Some("tree"), Some("body")),
        what,
        &book.results(),
    ) {
        Value::Figure { text, title } => (text, title),
        other => panic!("{other:?}"),
    };
    assert_eq!(count(SassCount::Division).0, "6");
    assert_eq!(count(SassCount::Instructions).0, "7");
    assert_eq!(count(SassCount::Branches).0, "1");
    let (predicated, title) = count(SassCount::Predicated);
    assert_eq!(predicated, "1");
    assert_eq!(
        title,
        "predicated instructions (branches apart) compiled from line 11 (anchor body) of tree, sm_90, NVRTC 13.0, nvdisasm 13.5.37, 2026-12-01 (results/sass/r/tree.json)"
    );
}

// No listing, or one of earlier code, is not measured: it says to run
// scripts/sass, fails a strict build and waits in an author's build.
#[test]
fn missing_and_stale_listings_wait_for_scripts_sass() {
    let book = Book::new();
    let t = target("r/tree", None, Some("body"));
    let missing = evaluate(&t, &book.results());
    assert!(
        matches!(&missing, Value::Unmeasured(why) if why == "not measured: results/sass/r/tree.json does not exist; run scripts/sass (no GPU needed) and commit results/sass/"),
        "{missing:?}"
    );
    assert!(awaits_listing(&t, &book.results()));
    book.store("an-earlier-key", vec![kernel("tree")]);
    let stale = evaluate(&t, &book.results());
    let Value::Sass(view) = &stale else {
        panic!("{stale:?}")
    };
    let why = "results/sass/r/tree.json was made for an earlier version of `r/tree`; run scripts/sass (no GPU needed) and commit results/sass/";
    assert_eq!(view.stale.as_deref(), Some(why));
    assert_eq!(stale.problem().as_deref(), Some(why));
    assert!(awaits_listing(&t, &book.results()));
    // A count of a stale listing is not given at all.
    assert_eq!(
        count(&t, SassCount::Division, &book.results()),
        Value::Unmeasured(why.into())
    );
    // A kernel the old listing lacks may be new: it waits too.
    let new_kernel = evaluate(&target("r/tree", Some("tree2"), None), &book.results());
    assert!(
        matches!(&new_kernel, Value::Unmeasured(w) if w.contains("has no kernel `tree2`")),
        "{new_kernel:?}"
    );
}

// An id, kernel or anchor the book does not have is a mistake in the
// directive, named with the word meant or the words there are.
#[test]
fn unknown_ids_kernels_and_anchors_are_mistakes() {
    let book = Book::new();
    book.store(&book.key(), vec![kernel("tree"), kernel("finish")]);
    let results = book.results();
    let cases = [
        (
            target("r/tere", Some("tree"), None),
            "no example with id `r/tere` in this book; did you mean `r/tree`?",
        ),
        (
            target("r/tree", Some("tre"), None),
            "`r/tree` has no kernel `tre`; did you mean `tree`?",
        ),
        (
            target("r/tree", Some("other"), None),
            "`r/tree` has no kernel `other`: its kernels are tree, finish",
        ),
        (
            target("r/tree", None, None),
            "`r/tree` has 2 kernels (tree, finish): name one, as in {{#sass r/tree tree}}",
        ),
        (
            target("r/tree", Some("tree"), Some("bdy")),
            "`r/tree` has no anchor `bdy` in kernels/r/tree.cu; did you mean `body`?",
        ),
        (
            target("r/tree", Some("tree"), Some("fold")),
            "`r/tree` has no anchor `fold` in kernels/r/tree.cu: its anchors are body",
        ),
    ];
    for (t, want) in cases {
        let value = evaluate(&t, &results);
        assert_eq!(value, Value::Mistake(want.into()), "{t:?}");
    }
    // A mistake never waits for scripts/sass.
    assert!(!awaits_listing(&target("r/tere", None, None), &results));
    let registers = count(
        &target("r/tree", Some("finish"), None),
        SassCount::Registers,
        &results,
    );
    assert!(matches!(registers, Value::Figure { text, .. } if text == "10"));
    // The stack frame is the kernel's too: bytes per thread, 0 without
    // spills.
    let stack = count(
        &target("r/tree", Some("finish"), None),
        SassCount::Stack,
        &results,
    );
    assert!(
        matches!(&stack, Value::Figure { text, .. } if text == "0"),
        "{stack:?}"
    );
}

// Code of another file at the anchor's line numbers is not the anchor's;
// code inlined through a call on the anchor's lines is, and its line says
// which file it is of.
#[test]
fn lines_of_included_files_are_not_the_anchors() {
    let book = Book::new();
    let mut k = kernel("tree");
    // The `S2R` of line 10 becomes code of line 11 of an included file...
    k.instructions[0].file = Some("kernels/r/fold.cuh".into());
    k.instructions[0].line = Some(11);
    // ...and the `STS` of line 12 code of that file called from line 11.
    k.instructions[8].file = Some("kernels/r/fold.cuh".into());
    k.instructions[8].called_from_file = Some("kernels/r/tree.cu".into());
    k.instructions[8].called_from = Some(11);
    book.store(&book.key(), vec![k]);
    let value = evaluate(&target("r/tree", None, Some("body")), &book.results());
    let Value::Sass(view) = &value else {
        panic!("{value:?}")
    };
    let marked: Vec<bool> = view.reading().marks.iter().map(|m| m.in_region).collect();
    assert_eq!(
        marked,
        [false, true, true, true, true, true, true, true, true, false]
    );
    assert!(
        view.count_line()
            .starts_with("Highlighted, the 8 instructions"),
        "{}",
        view.count_line()
    );
}

// A listing made before listings recorded files cannot tell an included
// file's lines from the example's: it is stale, and waits for scripts/sass.
#[test]
fn a_listing_without_files_is_stale() {
    let book = Book::new();
    let mut k = kernel("tree");
    for i in &mut k.instructions {
        i.file = None;
    }
    book.store_schema(1, &book.key(), vec![k]);
    let t = target("r/tree", None, Some("body"));
    let value = evaluate(&t, &book.results());
    let Value::Sass(view) = &value else {
        panic!("{value:?}")
    };
    assert!(
        view.stale.as_deref().is_some_and(|why| why.starts_with(
            "results/sass/r/tree.json was made by an earlier scripts/sass, which did not record each instruction's file"
        )),
        "{:?}",
        view.stale
    );
    assert!(awaits_listing(&t, &book.results()));
    assert!(matches!(
        count(&t, SassCount::Instructions, &book.results()),
        Value::Unmeasured(_)
    ));
}

// Line ranges read as an editor's lines.
#[test]
fn line_ranges_in_words() {
    assert_eq!(lines_text(&[(30, 30)]), "line 30");
    assert_eq!(lines_text(&[(30, 35)]), "lines 30–35");
    assert_eq!(lines_text(&[(30, 35), (40, 40)]), "lines 30–35 and 40");
}
