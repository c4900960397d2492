use super::*;
use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::stored::StoredReports;
use crate::test_support::{KERNEL, catalog_of, settings_in};
use crate::values::Value;

// `{{#host}}` as its directive evaluates it: the view, or the value shown
// instead.
fn evaluate(id: &str, size: cuda_measured_core::dims::Dims, results: &Results<'_>) -> Value {
    super::evaluate(id, size, results).map_or_else(Value::from, |view| Value::Host(Box::new(view)))
}

/// An example of two launches, which the host programs cannot run.
const TWO_LAUNCHES: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^28\"]\n[scratch]\npartials = \"grid0\"\n[[launch]]\nkernel = \"part\"\ngrid = 4\nblock = 32\nargs = [\"input\", \"partials\", \"n\"]\n[[launch]]\nkernel = \"finish\"\ngrid = 1\nblock = 32\nargs = [\"partials\", \"out\", \"grid0\"]\n+++*/\nextern \"C\" __global__ void part(const float* x, float* p, unsigned n) {}\nextern \"C\" __global__ void finish(const float* p, float* out, unsigned m) {}\n";

/// A book with kernel files `r/tree.cu` (one launch of input, out, n, at
/// 2^28) and `r/two.cu` (two launches), the three host programs, and its
/// stored records.
struct Book {
    dir: tempfile::TempDir,
    results_dir: std::path::PathBuf,
    catalog: Catalog,
    outcomes: Vec<Outcome>,
    stored: StoredReports,
}

impl Book {
    fn new() -> Self {
        let (dir, settings) = settings_in(&[
            ("kernels/r/tree.cu", KERNEL),
            ("kernels/r/two.cu", TWO_LAUNCHES),
            ("bench/host/host_sum.cu", "int main() {}\n"),
            ("bench/host/host_sum.py", "print('sum')\n"),
            ("bench/host/rust/src/main.rs", "fn main() {}\n"),
        ]);
        let catalog = catalog_of(
            &settings,
            "```cuda run file=r/tree.cu\n```\n\n```cuda run file=r/two.cu\n```\n",
        );
        let stored = StoredReports::new(&settings.results, "results");
        Book {
            results_dir: settings.results.clone(),
            dir,
            catalog,
            outcomes: vec![Outcome::Missing, Outcome::Missing],
            stored,
        }
    }

    fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    fn key(&self) -> String {
        self.results().example("r/tree").unwrap().1.to_string()
    }

    /// A current, passing record of `r/tree` in `language`.
    fn record(&self, language: &Language) -> Record {
        let program = std::fs::read(self.dir.path().join(language.program)).unwrap();
        Record {
            schema: host::SCHEMA_VERSION,
            example: "r/tree".into(),
            key: self.key(),
            language: language.key.into(),
            program: language.program.into(),
            program_sha256: host::program_sha256(&program),
            n: Size(N.n_value()),
            command: format!("run {}", language.key),
            exit_code: 0,
            pass: true,
            output: "sum 1.0: right".into(),
            tool: "tool 1.0".into(),
            gpu: "NVIDIA H200".into(),
            made_at: "2026-12-02T10:00:00Z".into(),
        }
    }

    fn store(&self, record: &Record) {
        let path = self
            .results_dir
            .join(host::relative_path(&record.example, &record.language));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string(record).unwrap()).unwrap();
    }
}

const N: cuda_measured_core::dims::Dims = cuda_measured_core::dims::Dims::n(1 << 28);

fn view_of(value: &Value) -> &HostView {
    match value {
        Value::Host(view) => view,
        other => panic!("{other:?}"),
    }
}

// Three current runs: three tabs in order, each with its program as it is
// now and its record; no problem for any build.
#[test]
fn current_runs_fill_three_tabs() {
    let book = Book::new();
    for language in &LANGUAGES {
        book.store(&book.record(language));
    }
    let value = evaluate("r/tree", N, &book.results());
    let view = view_of(&value);
    let labels: Vec<&str> = view.tabs.iter().map(|t| t.language.label).collect();
    assert_eq!(labels, ["CUDA C++", "Python (CuPy)", "Rust (cudarc)"]);
    assert_eq!(view.tabs[1].code, "print('sum')\n");
    assert_eq!(value.problem(), None);
    assert_eq!(view.state(), "pass");
    assert_eq!(view.group(), "cm-host-r-tree-268435456");
    assert_eq!(
        view.tabs[0].run.as_ref().unwrap().verdict(),
        "exit 0, check passed"
    );
}

// Each way a run stops describing the page is named: another example's
// key, another size, another program; a missing run says so. A failed run
// is shown failed, and is no problem. All of them wait for the host stage.
#[test]
fn stale_missing_and_failed_runs() {
    let book = Book::new();
    let [cuda, python, rust] = LANGUAGES;
    let mut failed = book.record(&cuda);
    failed.pass = false;
    failed.exit_code = 1;
    book.store(&failed);
    let mut other_program = book.record(&python);
    other_program.program_sha256 = "00".into();
    book.store(&other_program);
    let value = evaluate("r/tree", N, &book.results());
    let view = view_of(&value);
    let marks: Vec<&str> = view.tabs.iter().map(Tab::mark).collect();
    assert_eq!(marks, ["✗", "(stale)", "(not run)"]);
    assert_eq!(view.state(), "wrong");
    assert_eq!(
        value.problem().as_deref(),
        Some(
            "results/host/r/tree/python.json was run with an earlier version of bench/host/host_sum.py; run `bench/gpu-session.sh OUTDIR host` on a GPU machine and commit results/host/; not run yet: results/host/r/tree/rust.json does not exist; run `bench/gpu-session.sh OUTDIR host` on a GPU machine and commit results/host/"
        )
    );
    assert!(awaits_runs("r/tree", N, &book.results()));
    let mut old_key = book.record(&rust);
    old_key.key = "an-earlier-key".into();
    book.store(&old_key);
    let mut other_size = book.record(&python);
    other_size.n = Size(1 << 20);
    book.store(&other_size);
    let value = evaluate("r/tree", N, &book.results());
    let problem = value.problem().unwrap();
    assert!(
        problem.contains("python.json was run at N = 2^20, not 2^28"),
        "{problem}"
    );
    assert!(
        problem.contains("rust.json was run on an earlier version of `r/tree`"),
        "{problem}"
    );
}

// An unknown id, an undeclared size, an example the programs cannot
// launch and a program that cannot be read are mistakes, and never wait.
#[test]
fn mistakes_never_wait() {
    let book = Book::new();
    let results = book.results();
    let cases = [
        (
            evaluate("r/tre", N, &results),
            "no example with id `r/tre` in this book; did you mean `r/tree`?",
        ),
        (
            evaluate(
                "r/tree",
                cuda_measured_core::dims::Dims::n(1 << 22),
                &results,
            ),
            "`r/tree` does not declare N = 2^22: its declared sizes are 2^28",
        ),
        (
            evaluate("r/two", N, &results),
            "`r/two` has 2 launches: the host programs of bench/host launch one kernel with (input, out, n), so {{#host}} shows examples of one such launch",
        ),
    ];
    for (value, want) in cases {
        assert_eq!(value, Value::Mistake(want.into()));
    }
    assert!(!awaits_runs("r/two", N, &results));
    std::fs::remove_file(book.dir.path().join("bench/host/rust/src/main.rs")).unwrap();
    let unreadable = evaluate("r/tree", N, &book.results());
    assert!(
        matches!(&unreadable, Value::Mistake(why) if why.starts_with("bench/host/rust/src/main.rs cannot be read (")),
        "{unreadable:?}"
    );
    assert!(!awaits_runs("r/tree", N, &book.results()));
}

// The panel keeps to one HTML block: the programs' blank lines become
// character references; the first tab is checked.
#[test]
fn the_panel_is_one_html_block() {
    let book = Book::new();
    std::fs::write(
        book.dir.path().join("bench/host/host_sum.py"),
        "import cupy\n\nprint('sum')\n",
    )
    .unwrap();
    let value = evaluate("r/tree", N, &book.results());
    let html = super::html(view_of(&value)).into_string();
    assert!(!html.contains("\n\n"), "{html}");
    assert!(html.contains("import cupy&#10;&#10;print"), "{html}");
    assert_eq!(html.matches(" checked").count(), 1, "{html}");
    assert!(html.contains("Not run yet: results/host/r/tree/cuda.json does not exist"));
}
