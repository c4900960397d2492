use super::*;
use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::test_support::{
    ALLREDUCE_1GPU, ALLREDUCE_2GPU, ALLREDUCE_KERNELS, allreduce_json, allreduce_kernels_key,
    catalog_of, settings_in,
};
use crate::values::Value;

// `{{#allreduce}}` and `{{#allreduce_figure}}` as their directives
// evaluate them.
fn evaluate(gpus: usize, results: &Results<'_>) -> Value {
    Value::Allreduce(Box::new(super::evaluate(gpus, results)))
}

fn figure(
    gpus: usize,
    implementation: &str,
    field: AllreduceField,
    bytes: u64,
    results: &Results<'_>,
) -> Value {
    super::figure(gpus, implementation, field, bytes, results).into()
}

/// A book without examples, with the stand-in all-reduce kernels and an
/// empty store.
struct Book {
    dir: tempfile::TempDir,
    catalog: Catalog,
    outcomes: Vec<Outcome>,
    stored: StoredReports,
}

impl Book {
    fn new() -> Self {
        let (dir, settings) = settings_in(&ALLREDUCE_KERNELS);
        let catalog = catalog_of(&settings, "# All-reduce\n");
        let stored = StoredReports::new(&settings.results, "results").with_root(dir.path());
        Book {
            dir,
            catalog,
            outcomes: Vec::new(),
            stored,
        }
    }

    fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    /// Stores `report` as the report over `gpus` GPUs.
    fn store(&self, gpus: usize, report: &serde_json::Value) {
        let path = self
            .dir
            .path()
            .join(format!("results/allreduce/nvidia-h200-{gpus}gpu.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, report.to_string()).unwrap();
    }

    /// Both fixture reports, made with the kernels as they are.
    fn with_reports() -> Self {
        let book = Book::new();
        let key = allreduce_kernels_key();
        book.store(1, &allreduce_json(ALLREDUCE_1GPU, Some(&key)));
        book.store(2, &allreduce_json(ALLREDUCE_2GPU, Some(&key)));
        book
    }

    fn stale(&self, gpus: usize) -> Option<String> {
        match view(gpus, &self.results()).stored {
            Ok(stored) => stored.stale,
            Err(reason) => panic!("no report over {gpus} GPUs: {reason}"),
        }
    }
}

// Reports made with the kernels as they are now are current: no problem,
// nothing to wait for.
#[test]
fn current_reports() {
    let book = Book::with_reports();
    for gpus in [1, 2] {
        let value = evaluate(gpus, &book.results());
        let Value::Allreduce(view) = &value else {
            panic!("{value:?}")
        };
        assert_eq!(
            view.file,
            format!("results/allreduce/nvidia-h200-{gpus}gpu.json")
        );
        assert_eq!(value.problem(), None, "{gpus} GPUs");
        assert!(!awaits_report(gpus, &book.results()));
    }
}

// A report not made yet is not measured, names the command that makes it,
// and waits for a machine with that many GPUs.
#[test]
fn a_missing_report_says_how_to_make_it() {
    let book = Book::new();
    let value = evaluate(4, &book.results());
    assert_eq!(
        value.problem().as_deref(),
        Some(
            "not measured: results/allreduce/nvidia-h200-4gpu.json does not exist; run `cuda-runner allreduce --gpus 4` in the book's root on a machine with 4 GPUs and commit results/allreduce/"
        )
    );
    assert!(awaits_report(4, &book.results()));
}

// An edit to a kernel makes every report stale, saying why and how to
// measure again; it waits for the GPUs.
#[test]
fn a_kernel_edit_makes_reports_stale() {
    let book = Book::with_reports();
    std::fs::write(
        book.dir.path().join(ALLREDUCE_KERNELS[1].0),
        "extern \"C\" __global__ void allreduce_reduce_scatter() { }\n",
    )
    .unwrap();
    let reason = "the all-reduce kernels (kernels/allreduce/) changed since it was measured";
    assert_eq!(book.stale(2).as_deref(), Some(reason));
    assert_eq!(
        evaluate(2, &book.results()).problem().unwrap(),
        format!(
            "results/allreduce/nvidia-h200-2gpu.json: {reason}; run `cuda-runner allreduce --gpus 2` in the book's root on a machine with 2 GPUs and commit results/allreduce/"
        )
    );
    assert!(awaits_report(2, &book.results()));
    std::fs::remove_file(book.dir.path().join(ALLREDUCE_KERNELS[0].0)).unwrap();
    let unknown = book.stale(1).unwrap();
    assert!(
        unknown.starts_with("kernels/allreduce/one_shot.cu cannot be read (")
            && unknown.ends_with(
                "whether the all-reduce kernels changed since it was measured is not known"
            ),
        "{unknown}"
    );
}

// Another schema, no kernels' key (the first report, as stored), another
// GPU count or another GPU model: stale, every reason said.
#[test]
fn schema_key_count_and_model_make_reports_stale() {
    let book = Book::new();
    book.store(1, &allreduce_json(ALLREDUCE_1GPU, None));
    assert_eq!(
        book.stale(1).as_deref(),
        Some(
            "written before reports recorded the key of the all-reduce kernels (kernels/allreduce/)"
        )
    );
    let mut other = allreduce_json(ALLREDUCE_2GPU, Some(&allreduce_kernels_key()));
    other["schema"] = (SCHEMA_VERSION + 1).into();
    other["gpus"][1]["name"] = "NVIDIA H100 80GB HBM3".into();
    book.store(4, &other);
    assert_eq!(
        book.stale(4).as_deref(),
        Some(&*format!(
            "written as report schema v{}; this preprocessor reads v{SCHEMA_VERSION}; it holds a run over 2 GPUs, not 4 GPUs; measured on NVIDIA H100 80GB HBM3, not on the book's NVIDIA H200",
            SCHEMA_VERSION + 1
        ))
    );
}

fn figure_of(
    book: &Book,
    gpus: usize,
    implementation: &str,
    field: AllreduceField,
    size: &str,
) -> Value {
    let bytes = cuda_measured_core::allreduce::sizes::parse_bytes(size).unwrap();
    figure(gpus, implementation, field, bytes, &book.results())
}

// A figure of a current report reads like the table, with where it comes
// from in its tooltip.
#[test]
fn figures_of_a_current_report() {
    let book = Book::with_reports();
    let cases = [
        (2, "one-shot", AllreduceField::Busbw, "512KiB", "61.1 GB/s"),
        (2, "one-shot", AllreduceField::Time, "512KiB", "8.584 µs"),
        (2, "nccl", AllreduceField::Algbw, "256MiB", "326 GB/s"),
        (1, "nccl", AllreduceField::Time, "256MiB", "128.5 µs"),
        (1, "nccl", AllreduceField::Busbw, "256MiB", "0.00 GB/s"),
    ];
    for (gpus, implementation, field, size, want) in cases {
        match figure_of(&book, gpus, implementation, field, size) {
            Value::Figure { text, .. } => assert_eq!(text, want, "{implementation} {size}"),
            other => panic!("{implementation} {size}: {other:?}"),
        }
    }
    let Value::Figure { title, .. } = figure_of(&book, 1, "nccl", AllreduceField::Busbw, "8")
    else {
        panic!("not a figure")
    };
    assert!(
        title.starts_with("nccl all-reduce of 8 B over 1 × NVIDIA H200, hot, the slowest rank's median; measured 2026-12-01; one rank: no byte crosses a link"),
        "{title}"
    );
}

// A size the report lacks lists the sizes it has; a size whose check
// failed gives the failure; neither waits for a GPU. A figure of a stale
// or missing report is not measured and waits.
#[test]
fn figures_that_are_not_there() {
    let book = Book::with_reports();
    let unmeasured = |value: Value| match value {
        Value::Unmeasured(why) => why,
        other => panic!("{other:?}"),
    };
    let lacking = unmeasured(figure_of(
        &book,
        2,
        "one-shot",
        AllreduceField::Busbw,
        "256KiB",
    ));
    assert!(
        lacking.starts_with("results/allreduce/nvidia-h200-2gpu.json has no one-shot at 256 KiB: its sizes are 8 B, 32 B, 128 B,"),
        "{lacking}"
    );
    let failed = unmeasured(figure_of(&book, 2, "two-shot", AllreduceField::Time, "8"));
    assert!(
        failed.starts_with(
            "two-shot at 8 B in results/allreduce/nvidia-h200-2gpu.json has no figure: wrong answer"
        ),
        "{failed}"
    );
    assert!(!awaits_report(2, &book.results()));
    let missing = unmeasured(figure_of(&book, 4, "nccl", AllreduceField::Busbw, "256MiB"));
    assert!(
        missing.starts_with("not measured: results/allreduce/nvidia-h200-4gpu.json"),
        "{missing}"
    );
}
