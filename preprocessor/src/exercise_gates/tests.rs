use super::*;
use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::stored::StoredReports;
use crate::test_support::{KERNEL, catalog_of, record, settings_in};
use cuda_measured_core::declaration::Expectation;

const STAGE1: &str = "title = \"One\"\nsize = \"2^28\"\nstarter = \"a.cu\"\nsolution = \"b.cu\"\ngoal = \"g\"\nlesson = \"l\"\n";

const STAGE2: &str = r#"title = "Two"
size = "2^28"
starter = "b.cu"
solution = "c.cu"
goal = "g"
lesson = "l"

[[count]]
what = "`atomicAdd` calls"
starter = "threads"
solution = "blocks"

[[gate]]
kind = "speedup"
over = "stage1"
min = 2

[[gate]]
kind = "profile"
metric = "sm"
min = 50

[[gate]]
kind = "profile_ratio"
metric = "instructions"
over = "starter"
max = 0.7

[[gate]]
kind = "time"
max = 100

[[gate]]
kind = "pct_ceiling"
min = 5

[[gate]]
kind = "peer"
peer = "cub"
"#;

/// Stage 2 of a track whose starter (`b`, stage 1's solution) takes ten
/// times the solution's (`c`) time; the solution has no record unless
/// `measured`.
struct Book {
    dir: tempfile::TempDir,
    catalog: Catalog,
    outcomes: Vec<Outcome>,
    stored: StoredReports,
}

impl Book {
    fn new(measured: bool) -> Self {
        let (dir, settings) = settings_in(&[
            ("kernels/exercise/t/a.cu", KERNEL),
            ("kernels/exercise/t/b.cu", KERNEL),
            ("kernels/exercise/t/c.cu", KERNEL),
            ("kernels/exercise/t/stage1.toml", STAGE1),
            ("kernels/exercise/t/stage2.toml", STAGE2),
        ]);
        let catalog = catalog_of(&settings, "{{#exercise t/stage2}}\n");
        let mut slow = record(Status::Pass, Expectation::Pass);
        slow.sizes[0].median_us *= 10.0;
        let mut fast = record(Status::Pass, Expectation::Pass);
        fast.sizes[0].pct_ceiling = Some(50.0);
        let solution = if measured {
            Outcome::Fresh(fast)
        } else {
            Outcome::Missing
        };
        let stored = StoredReports::new(&settings.results, "results");
        Book {
            dir,
            catalog,
            outcomes: vec![Outcome::Fresh(slow), solution],
            stored,
        }
    }

    fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    fn stage(&self) -> &Stage {
        &self.catalog.exercises[0].stage.as_ref().unwrap().stage
    }

    fn key(&self, index: usize) -> String {
        self.catalog.entries[index]
            .resolved
            .as_ref()
            .unwrap()
            .key
            .clone()
    }

    /// Stores a profile of `id` with `key`: SM throughput and instructions.
    fn store_profile(&self, id: &str, key: &str, sm: f64, instructions: f64) {
        let profile = serde_json::json!({
            "schema": 1, "example": id, "key": key, "n": 268435456,
            "gpu": "NVIDIA H200", "tool": "ncu 2025.3", "measured_at": "2026-12-01T00:00:00Z",
            "kernels": [{"name": "tree(const float *, float *, unsigned int)",
                "block": "(32, 1, 1)", "grid": "(1, 1, 1)", "metrics": {
                    "sm__throughput.avg.pct_of_peak_sustained_elapsed": {"unit": "%", "value": sm},
                    "smsp__inst_executed.sum": {"unit": "inst", "value": instructions}}}]
        });
        self.write(&format!("results/profile/{id}/268435456.json"), &profile);
    }

    /// Stores a comparison, timed in one session, in which the solution
    /// takes 251.2 µs and CUB 300 µs at 2^28.
    fn store_peers(&self) {
        let timing = |median: f64| {
            serde_json::json!({"median_us": median, "min_us": median,
            "max_us": median, "samples": 50, "rel_spread": 0.01, "noisy": false, "pass": true})
        };
        let report = serde_json::json!({
            "schema": 1, "problem": "sum_f32", "ours_example": "exercise/t/c",
            "ours_key": self.key(1), "one_session": true,
            "gpu": "NVIDIA H200", "peak_gbs": 4800.0, "ceilings": null, "versions": {},
            "measured_at": "2026-12-01T00:00:00Z",
            "rows": [{"n": 268435456, "bytes": 1073741828, "ours": timing(251.2),
                "peers": {"cub": timing(300.0)}}],
            "peer_info": [{"key": "cub", "label": "CUB DeviceReduce::Sum", "short": "CUB",
                "colour": "#4C8BD6", "chart": true}],
            "reference": "cub"
        });
        self.write("results/peers/sum_f32.json", &report);
    }

    fn write(&self, rel: &str, value: &serde_json::Value) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    }
}

/// A gate row's verdicts as short words: `passed 10.0×`, `failed 1.00×`,
/// `waits`, `missing`.
fn words(row: &GateRow) -> [String; 2] {
    row.cells.each_ref().map(|judged| match judged {
        Judged::Passed(figure, _) => format!("passed {figure}"),
        Judged::Failed(figure, _) => format!("failed {figure}"),
        Judged::NotMeasured(why) if why.waits => "waits".into(),
        Judged::NotMeasured(_) => "missing".into(),
    })
}

// Every gate is judged for starter and solution from the records, the
// profiles and the stored comparison: the starter fails what the solution
// passes, and a bound the solution misses fails it.
#[test]
fn gates_are_judged_for_starter_and_solution() {
    let book = Book::new(true);
    book.store_profile("exercise/t/b", &book.key(0), 1.0, 1000.0);
    book.store_profile("exercise/t/c", &book.key(1), 80.0, 100.0);
    book.store_peers();
    let table = table(book.stage(), &book.results());
    let rows: Vec<(&str, [String; 2])> = table
        .gates
        .iter()
        .map(|g| (g.needs.as_str(), words(g)))
        .collect();
    let want = [
        (
            "correct at N = 2^28 and at every edge size",
            ["passed correct", "passed correct"],
        ),
        (
            "at least 2× as fast as stage 1's solution (one session)",
            ["failed 1.00×", "passed 10.0×"],
        ),
        ("SM throughput ≥ 50%", ["failed 1.0%", "passed 80.0%"]),
        (
            "instructions executed ≤ 0.7× those of the starter",
            ["failed 1.00×", "passed 0.10×"],
        ),
        (
            "median time ≤ 100 µs",
            ["failed 2.512 ms", "failed 251.2 µs"],
        ),
        (
            "at least 5% of the read ceiling",
            ["missing", "passed 50.0%"],
        ),
        (
            "as fast as CUB or faster (one session)",
            ["failed 8.37× CUB's time", "passed 0.84× CUB's time"],
        ),
    ];
    assert_eq!(rows.len(), want.len());
    for ((needs, got), (want_needs, want_words)) in rows.iter().zip(want) {
        assert_eq!(*needs, want_needs);
        assert_eq!(got, &want_words.map(str::to_string), "{needs}");
    }
    assert_eq!(
        super::render::summary(&table),
        "The solution fails 1 of 7 gates: median time ≤ 100 µs."
    );
    let counts = &table.rows[4];
    assert_eq!(counts.heading, "`atomicAdd` calls");
    assert_eq!(counts.cells[0].text, "270,336");
    assert_eq!(counts.cells[1].text, "528 (512× fewer)");
    assert_eq!(
        counts.cells[1].title.as_deref(),
        Some("one per block of the stored launch, 528 x 512")
    );
}

// Without a record or a current profile a gate is not measured, and says
// whether a GPU run settles it: a missing record or profile does, a
// comparison that does not exist does not.
#[test]
fn missing_data_is_not_measured_with_the_reason() {
    let book = Book::new(false);
    book.store_profile("exercise/t/c", "an earlier key", 80.0, 100.0);
    let table = table(book.stage(), &book.results());
    let solution: Vec<String> = table.gates.iter().map(|g| words(g)[1].clone()).collect();
    assert_eq!(solution, ["waits"; 7]);
    let Judged::NotMeasured(why) = &table.gates[2].cells[1] else {
        panic!("judged")
    };
    assert!(
        why.reason.contains("earlier version of `exercise/t/c`"),
        "{}",
        why.reason
    );
    assert_eq!(table.rows[0].cells[1].text, "not measured");
    assert_eq!(
        super::render::summary(&table),
        "7 of the solution's 7 gates not measured yet."
    );
    let measured = Book::new(true);
    let peerless = super::table(measured.stage(), &measured.results());
    let Judged::NotMeasured(why) = &peerless.gates[6].cells[1] else {
        panic!("judged")
    };
    assert!(!why.waits);
    assert!(
        why.reason.contains("results/peers/sum_f32.json"),
        "{}",
        why.reason
    );
}

// The markdown table has a row per figure and gate, with the verdicts.
#[test]
fn the_markdown_table_reads_as_the_html_one() {
    let book = Book::new(true);
    book.store_peers();
    let table = table(book.stage(), &book.results());
    let text = super::render::markdown_table(&table, "Caption.");
    assert!(text.starts_with("| N = 2^28 | starter `b` | solution `c` |\n| --- | --- | --- |\n| median time | 2.512 ms | 251.2 µs |\n"), "{text}");
    assert!(
        text.contains(
            "| gate: as fast as CUB or faster (one session) | 8.37× CUB's time ✗ failed | 0.84× CUB's time ✓ passed |"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("*The solution fails 1 of 7 gates (2 not measured yet): median time ≤ 100 µs. Caption.*\n"),
        "{text}"
    );
}

// A `sass` gate on `shared` reads the static shared memory of each
// kernel's current listing: the starter's 34816 bytes fail a bound of
// 34000 that the solution's 33792 pass, whatever the instructions; a
// listing of earlier code is not judged.
#[test]
fn a_shared_memory_gate_reads_the_listing() {
    let stage2 = "title = \"Two\"\nsize = \"2^28\"\nstarter = \"b.cu\"\nsolution = \"c.cu\"\ngoal = \"g\"\nlesson = \"l\"\n\n[[gate]]\nkind = \"sass\"\ncount = \"shared\"\nmax = 34000\n";
    let (dir, settings) = settings_in(&[
        ("kernels/exercise/t/a.cu", KERNEL),
        ("kernels/exercise/t/b.cu", KERNEL),
        ("kernels/exercise/t/c.cu", KERNEL),
        ("kernels/exercise/t/stage1.toml", STAGE1),
        ("kernels/exercise/t/stage2.toml", stage2),
    ]);
    let catalog = catalog_of(&settings, "{{#exercise t/stage2}}\n");
    let key = |index: usize| {
        catalog.entries[index]
            .resolved
            .as_ref()
            .unwrap()
            .key
            .clone()
    };
    let listing = |id: &str, key: &str, shared: u32| {
        let value = serde_json::json!({
            "schema": 2, "example": id, "key": key, "arch": "sm_90", "nvrtc": "13.0",
            "tool": "nvdisasm 13.5.37", "made_at": "2026-12-01T00:00:00Z",
            "kernels": [{"name": "tree", "registers": 14, "stack": 0, "shared": shared, "local": 0,
                "instructions": [{"offset": 0, "text": "EXIT", "file": "kernels/exercise/t/b.cu", "line": 1}]}]
        });
        let path = dir.path().join(format!("results/sass/{id}.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    };
    listing("exercise/t/b", &key(0), 34816);
    listing("exercise/t/c", &key(1), 33792);
    let outcomes = vec![
        Outcome::Fresh(record(Status::Pass, Expectation::Pass)),
        Outcome::Fresh(record(Status::Pass, Expectation::Pass)),
    ];
    let stored = StoredReports::new(&settings.results, "results");
    let stage = &catalog.exercises[0].stage.as_ref().unwrap().stage;
    let results = Results::new(&catalog, &outcomes, &stored);
    let judged = table(stage, &results);
    let gate = &judged.gates[1];
    assert_eq!(
        gate.needs,
        "bytes of static shared memory per block ≤ 34000"
    );
    assert_eq!(words(gate), ["failed 34816", "passed 33792"]);

    listing("exercise/t/c", "an earlier key", 33792);
    let stored = StoredReports::new(&settings.results, "results");
    let results = Results::new(&catalog, &outcomes, &stored);
    assert_eq!(words(&table(stage, &results).gates[1])[1], "waits");
}

// An example of several launches has a profile of several kernels: a
// counter that adds up (instructions) is judged on its sum over them, so
// a gate compares what two multi-launch examples did as a whole; a rate
// of each kernel (SM throughput) has no total and is not judged.
#[test]
fn a_counter_of_several_kernels_is_their_sum() {
    let book = Book::new(true);
    book.store_profile("exercise/t/b", &book.key(0), 1.0, 1000.0);
    let kernel = |name: &str, sm: f64, instructions: f64| {
        serde_json::json!({"name": name, "block": "(256, 1, 1)", "grid": "(8, 1, 1)", "metrics": {
            "sm__throughput.avg.pct_of_peak_sustained_elapsed": {"unit": "%", "value": sm},
            "smsp__inst_executed.sum": {"unit": "inst", "value": instructions}}})
    };
    let profile = serde_json::json!({
        "schema": 1, "example": "exercise/t/c", "key": book.key(1), "n": 268435456,
        "gpu": "NVIDIA H200", "tool": "ncu 2025.3", "measured_at": "2026-12-01T00:00:00Z",
        "kernels": [kernel("first(float *)", 80.0, 300.0), kernel("second(float *)", 60.0, 100.0)]
    });
    book.write("results/profile/exercise/t/c/268435456.json", &profile);
    let table = table(book.stage(), &book.results());
    let gate = |needs: &str| {
        table
            .gates
            .iter()
            .find(|g| g.needs.starts_with(needs))
            .unwrap_or_else(|| panic!("no gate {needs}"))
    };
    assert_eq!(
        words(gate("instructions executed"))[1],
        "passed 0.40×",
        "400 of the starter's 1000"
    );
    let Judged::NotMeasured(why) = &gate("SM throughput").cells[1] else {
        panic!("a rate of two kernels was judged")
    };
    assert!(
        !why.waits && why.reason.contains("no total"),
        "{}",
        why.reason
    );
}
