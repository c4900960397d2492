use super::*;
use crate::book_pass::run_pass;
use crate::catalog::Catalog;
use crate::outcome::Outcome;
use crate::results::Results;
use crate::stored::StoredReports;
use crate::test_support::{KERNEL, chapter, record, settings_in};
use cuda_measured_core::declaration::Expectation;
use cuda_measured_core::host::{self, LANGUAGES};
use cuda_measured_core::record::Status;
use cuda_measured_core::sass::{Instruction, Kernel, Listing};
use cuda_measured_core::size::Size;
use cuda_measured_core::{profile, sanitizer, sass};

const N: Size = Size(1 << 28);

/// The chapter: three kernel files, `r/a` (its evidence current), `r/b`
/// (stale: made for another key) and `r/c` (none stored), each shown by
/// every kind of directive under a heading of its own.
fn chapter_text() -> String {
    let mut text = String::from("# Book\n\n");
    for id in ["a", "b", "c"] {
        text.push_str(&format!("```cuda run file=r/{id}.cu\n```\n\n"));
    }
    text.push_str("## Listings\n\n");
    for id in ["a", "b", "c"] {
        text.push_str(&format!("{{{{#sass r/{id}}}}}\n\nIt has {{{{#sass_count r/{id} instructions}}}} instructions.\n\n"));
    }
    text.push_str("## Counters\n\n");
    for id in ["a", "b", "c"] {
        text.push_str(&format!("Reads {{{{#profile r/{id} dram 2^28}}}}.\n\n"));
    }
    text.push_str("## Races\n\n");
    for id in ["a", "b", "c"] {
        text.push_str(&format!("{{{{#sanitizer r/{id} racecheck 2^28}}}}\n\n"));
    }
    text.push_str("## Hosts\n\n");
    for id in ["a", "b", "c"] {
        text.push_str(&format!("{{{{#host r/{id} 2^28}}}}\n\n"));
    }
    text.push_str("## Peers\n\n");
    for id in ["a", "b", "c"] {
        text.push_str(&format!("{{{{#peers p_{id}}}}}\n\n"));
    }
    text.push_str("## Again\n\n{{#repeatability}}\n\n{{#sass r/a}}\n");
    text
}

/// A book of [`chapter_text`] and its store: every file of `r/a` made
/// for its key now, of `r/b` for key `old`, none of `r/c`.
struct Book {
    dir: tempfile::TempDir,
    settings: crate::config::Settings,
    catalog: Catalog,
    outcomes: Vec<Outcome>,
    stored: StoredReports,
}

impl Book {
    fn new() -> Self {
        let (dir, settings) = settings_in(&[
            ("kernels/r/a.cu", KERNEL),
            ("kernels/r/b.cu", KERNEL),
            ("kernels/r/c.cu", KERNEL),
            ("bench/host/host_sum.cu", "int main() {}\n"),
            ("bench/host/host_sum.py", "print('sum')\n"),
            ("bench/host/rust/src/main.rs", "fn main() {}\n"),
        ]);
        let catalog = Catalog::build(&settings, &[chapter("ch.md", &chapter_text())]);
        let fresh = Outcome::Fresh(record(Status::Pass, Expectation::Pass));
        let stored = StoredReports::new(&settings.results, "results").with_root(dir.path());
        let book = Book {
            dir,
            settings,
            catalog,
            outcomes: vec![fresh.clone(), fresh.clone(), fresh],
            stored,
        };
        book.store_all("r/a", &book.key("r/a"));
        book.store_all("r/b", "old");
        book
    }

    fn results(&self) -> Results<'_> {
        Results::new(&self.catalog, &self.outcomes, &self.stored)
    }

    fn key(&self, id: &str) -> String {
        self.results().example(id).unwrap().1.to_string()
    }

    fn write(&self, rel: &str, json: &str) {
        let path = self.settings.results.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, json).unwrap();
    }

    /// Every kind of evidence of `id`, made for `key`.
    fn store_all(&self, id: &str, key: &str) {
        let listing = Listing {
            schema: sass::SCHEMA_VERSION,
            example: id.into(),
            key: key.into(),
            arch: "sm_90".into(),
            nvrtc: "13.0".into(),
            tool: "nvdisasm 13.5.37".into(),
            made_at: "2026-12-01T11:12:05Z".into(),
            kernels: vec![Kernel {
                name: "tree".into(),
                instructions: vec![Instruction {
                    file: Some(format!("kernels/{id}.cu")),
                    line: Some(11),
                    ..Instruction::new(0, "EXIT")
                }],
                ..Kernel::default()
            }],
        };
        self.write(
            &sass::relative_path(id),
            &serde_json::to_string(&listing).unwrap(),
        );
        let profile = serde_json::json!({
            "schema": 1, "example": id, "key": key, "n": N.0,
            "gpu": "NVIDIA H200", "tool": "ncu 2025.3", "measured_at": "2026-12-02T00:00:00Z",
            "kernels": [{"name": "tree(const float *, float *, unsigned int)",
                "block": "(256, 1, 1)", "grid": "(1024, 1, 1)",
                "metrics": {"dram__throughput.avg.pct_of_peak_sustained_elapsed":
                    {"unit": "%", "value": 96.94}}}]
        });
        self.write(
            &profile::relative_path(id, cuda_measured_core::dims::Dims::n(N.0), "NVIDIA H200"),
            &profile.to_string(),
        );
        let report = sanitizer::Report {
            schema: sanitizer::SCHEMA_VERSION,
            example: id.into(),
            key: key.into(),
            n: N,
            dims: None,
            check: "racecheck".into(),
            tool: "compute-sanitizer 2025.3.1".into(),
            gpu: "NVIDIA H200".into(),
            made_at: "2026-12-03T09:30:00Z".into(),
            findings: Vec::new(),
            summary: None,
            errors: 0,
            warnings: 0,
        };
        self.write(
            &sanitizer::relative_path(id, "racecheck", cuda_measured_core::dims::Dims::n(N.0)),
            &serde_json::to_string(&report).unwrap(),
        );
        for language in LANGUAGES {
            let program = std::fs::read(self.dir.path().join(language.program)).unwrap();
            let run = host::Record {
                schema: host::SCHEMA_VERSION,
                example: id.into(),
                key: key.into(),
                language: language.key.into(),
                program: language.program.into(),
                program_sha256: host::program_sha256(&program),
                n: N,
                command: format!("run {}", language.key),
                exit_code: 0,
                pass: true,
                output: "sum 1.0: right".into(),
                tool: format!("{} 1.0", language.key),
                gpu: "NVIDIA H200".into(),
                made_at: "2026-12-04T10:00:00Z".into(),
            };
            self.write(
                &host::relative_path(id, language.key),
                &serde_json::to_string(&run).unwrap(),
            );
        }
        let peers = serde_json::json!({
            "schema": 1, "problem": "sum_f32", "ours_example": id, "ours_key": key,
            "gpu": "NVIDIA H200", "peak_gbs": 4800.0, "ceilings": null,
            "versions": {"cub": "3.0"},
            "measured_at": "2026-12-05T12:00:00Z", "rows": []
        });
        let problem = id.replace("r/", "p_");
        self.write(&format!("peers/{problem}.json"), &peers.to_string());
    }

    fn evidence(&self) -> Evidence {
        let uses = uses(
            &self.settings,
            &self.catalog,
            &[chapter("ch.md", &chapter_text())],
        );
        Evidence::new(&uses, &self.results())
    }
}

/// A row as `state file | places | made | tool | section`.
fn line(r: &Row) -> String {
    format!(
        "{} {} | {} | {} | {} | {}",
        r.state.word(),
        r.file,
        r.places.join(", "),
        r.date.as_deref().unwrap_or("—"),
        r.tool.as_deref().unwrap_or("—"),
        r.section.as_deref().unwrap_or("—"),
    )
}

// One current, one stale and one missing file of each kind, grouped by
// kind in reading order, each with the places that use it (a listing used
// twice is one row), its date and tool and its section; a file's state is
// the one its directive's page gives it.
#[test]
fn every_kind_current_stale_and_missing() {
    let book = Book::new();
    let evidence = book.evidence();
    let lines: Vec<String> = evidence.rows.iter().map(line).collect();
    insta::assert_snapshot!(lines.join("\n"));
    assert_eq!(
        evidence.summary(),
        "22 stored evidence files: 7 current, 7 stale, 8 missing"
    );
    assert_eq!(
        evidence.remedy().as_deref(),
        Some(
            "To make them: run scripts/sass (no GPU needed); on a GPU machine, run bench/gpu-session.sh OUTDIR profile|sanitize|host|peers|book2."
        )
    );
    let stale = evidence
        .rows
        .iter()
        .find(|r| r.file == "results/sanitizer/r/b/racecheck-268435456.json")
        .unwrap();
    assert_eq!(
        stale.reason.as_deref(),
        Some(
            "results/sanitizer/r/b/racecheck-268435456.json was run on an earlier version of `r/b`; run `bench/gpu-session.sh OUTDIR sanitize` on a GPU machine and commit results/sanitizer/"
        )
    );
}

// The repeatability report is one file: current, stale (another method)
// or missing.
#[test]
fn the_repeatability_report() {
    let book = Book::new();
    let state = |book: &Book| {
        let e = book.evidence();
        let row = e
            .rows
            .iter()
            .find(|r| r.kind == Kind::Repeatability)
            .unwrap()
            .clone();
        (row.state, row.tool)
    };
    assert_eq!(state(&book).0, State::Missing);
    let report = |method: u32| {
        serde_json::json!({
            "gpu": "NVIDIA H200", "measured_at": "2026-12-06T00:00:00Z", "rows": [],
            "method_version": method, "keys": {},
            "max_abs_diff_pct_over_floor": 0.5, "goal_met": true
        })
        .to_string()
    };
    book.write(
        "repeatability.json",
        &report(cuda_measured_core::METHOD_VERSION),
    );
    assert_eq!(
        state(&book),
        (
            State::Current,
            Some(format!(
                "cuda-runner, method v{}",
                cuda_measured_core::METHOD_VERSION
            ))
        )
    );
    book.write("repeatability.json", &report(1));
    assert_eq!(state(&book).0, State::Stale);
}

// A directive naming an example the book lacks marks its file an error,
// not missing; the status page links each row to its section.
#[test]
fn mistakes_and_links() {
    let book = Book::new();
    let text = "# Top\n\n{{#sass r/nope}}\n\n## Sub part\n\n{{#profile r/a dram 2^28}}\n";
    let chapters = [chapter("ch.md", text)];
    let catalog = Catalog::build(&book.settings, &chapters);
    let uses = uses(&book.settings, &catalog, &chapters);
    let mut evidence = Evidence::new(&uses, &book.results());
    let states: Vec<(Kind, State)> = evidence.rows.iter().map(|r| (r.kind, r.state)).collect();
    assert_eq!(
        states,
        [(Kind::Profile, State::Current), (Kind::Sass, State::Error)]
    );
    evidence.link_from(
        &[std::path::Path::new("part/ch.md")],
        std::path::Path::new("status.md"),
    );
    let hrefs: Vec<Option<&str>> = evidence.rows.iter().map(|r| r.href.as_deref()).collect();
    assert_eq!(
        hrefs,
        [Some("part/ch.html#sub-part"), Some("part/ch.html#top")]
    );
}

// The pass gives the evidence to the status page, and `status` prints it.
#[test]
fn the_pass_gathers_the_evidence() {
    let book = Book::new();
    let text = format!("{}\n{{{{#status}}}}\n", chapter_text());
    let pass = run_pass(
        &[chapter("ch.md", &text)],
        &book.settings,
        crate::render::Target::Markdown,
        &mut crate::measure::IsolatedBench::new(
            book.settings.runner.clone(),
            cuda_measured_core::session::Config::default(),
        ),
        &mut Vec::new(),
    )
    .expect("a frozen pass never measures");
    assert_eq!(pass.evidence.rows.len(), 22);
    assert!(
        pass.chapters[0].contains("22 stored evidence files: "),
        "{}",
        pass.chapters[0]
    );
}

// Each all-reduce report is one file, however many directives read it:
// current, stale (made for other kernels) or missing, each with the
// command for its own GPU count, and the remedy names the machines.
#[test]
fn all_reduce_reports() {
    use crate::test_support::{
        ALLREDUCE_1GPU, ALLREDUCE_2GPU, ALLREDUCE_KERNELS, allreduce_json, allreduce_kernels_key,
    };
    let (dir, settings) = settings_in(&ALLREDUCE_KERNELS);
    let text = "# Across GPUs\n\n{{#allreduce 1}}\n\nIt takes {{#allreduce_figure 1 nccl time 8}}.\n\n{{#allreduce 2}}\n\n{{#allreduce 4}}\n";
    let chapters = [chapter("ch.md", text)];
    let catalog = Catalog::build(&settings, &chapters);
    let stored = StoredReports::new(&settings.results, "results").with_root(dir.path());
    let reports = [
        (
            1,
            allreduce_json(ALLREDUCE_1GPU, Some(&allreduce_kernels_key())),
        ),
        (2, allreduce_json(ALLREDUCE_2GPU, Some("old"))),
    ];
    for (gpus, report) in reports {
        let path = settings
            .results
            .join(format!("allreduce/nvidia-h200-{gpus}gpu.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, report.to_string()).unwrap();
    }
    let results = Results::new(&catalog, &[], &stored);
    let evidence = Evidence::new(&uses(&settings, &catalog, &chapters), &results);
    let lines: Vec<String> = evidence
        .rows
        .iter()
        .map(|r| format!("{} | {} | {}", line(r), r.kind.word(), r.kind.command()))
        .collect();
    assert_eq!(
        lines,
        [
            "current results/allreduce/nvidia-h200-1gpu.json | src/ch.md:3, src/ch.md:5 | 2026-12-01 | cuda-runner 0.1.0, NCCL 2.28.3 | across-gpus | all-reduce report | cuda-runner allreduce --gpus 1",
            "stale results/allreduce/nvidia-h200-2gpu.json | src/ch.md:7 | 2026-12-03 | cuda-runner 0.1.0, NCCL 2.28.3 | across-gpus | all-reduce report | cuda-runner allreduce --gpus 2",
            "missing results/allreduce/nvidia-h200-4gpu.json | src/ch.md:9 | — | — | across-gpus | all-reduce report | cuda-runner allreduce --gpus 4",
        ]
    );
    assert_eq!(
        evidence.remedy().as_deref(),
        Some(
            "To make them: on a machine with 2 GPUs, run cuda-runner allreduce --gpus 2; on a machine with 4 GPUs, run cuda-runner allreduce --gpus 4."
        )
    );
    let table = crate::status_page::evidence_table(&evidence);
    let kinds: Vec<&str> = table.rows.iter().map(|r| r[0].text.as_str()).collect();
    assert_eq!(kinds, ["all-reduce report", "", ""]);
}
