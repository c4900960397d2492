//! Settles every example's [`Outcome`]: reads the results store, and where
//! the mode allows and a GPU is present, measures stale and missing
//! examples in an isolated `cuda-runner` child, writing each record to the
//! store as soon as it exists (a build killed halfway loses nothing stored
//! before). Progress goes to stderr; mdBook shows it while the build runs.
//! A record that cannot be written is said there at once, and its outcome
//! is [`Outcome::Unstored`]: the panel warns, and a strict build fails.

use crate::catalog::Catalog;
use crate::compile_step::Compiled;
use crate::config::{Mode, Settings};
use crate::outcome::{Outcome, status_words};
use cuda_measured_core::isolate;
use cuda_measured_core::limits::KnownGpu;
use cuda_measured_core::record::Record;
use cuda_measured_core::session::{self, Event, Job};
use cuda_measured_core::store::{Lookup, Store, StoreError};
use std::io::Write;

pub use cuda_measured_core::session::{Bench, IsolatedBench};

/// Why the examples cannot be settled.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// `mode = "force"` on a machine without a usable GPU.
    #[error(
        "mode = \"force\" asks to measure {count} examples, but no GPU answered {probe}; build on a GPU machine, or use mode = \"auto\" or \"frozen\""
    )]
    NoGpuForForce {
        /// Examples that would be measured.
        count: usize,
        /// How the GPU was looked for.
        probe: String,
    },
}

/// Outcomes of all entries of a catalog, in the same order.
#[derive(Debug, Clone, Default)]
pub struct Settled {
    /// One outcome per catalog entry; records measured but not stored are
    /// [`Outcome::Unstored`].
    pub outcomes: Vec<Outcome>,
    /// Examples measured in this build.
    pub measured: usize,
}

/// Reads and, as the mode allows, measures every example of `catalog`;
/// an example that `compiled` says is broken is, and is not measured.
pub fn settle(
    catalog: &Catalog,
    settings: &Settings,
    compiled: &Compiled,
    bench: &mut dyn Bench,
    progress: &mut dyn Write,
) -> Result<Settled, MeasureError> {
    let store = Store::new(&settings.results, KnownGpu::target().name);
    // Quick mode keeps its records apart: the results store is never
    // written with them, and they are read only where the store has no
    // record of the current code.
    let quick = settings
        .quick
        .then(|| Store::new(&settings.quick_store, KnownGpu::target().name));
    let lookup = |id: &str, key: &str| -> Result<Outcome, StoreError> {
        let found = match Outcome::from(store.lookup(id, key)?) {
            // A quick record has no place in results/: never current there.
            Outcome::Fresh(r) if r.quick => Outcome::Stale(r),
            other => other,
        };
        if let (Some(quick), Outcome::Stale(_) | Outcome::Missing) = (&quick, &found)
            && let Ok(fresh @ Lookup::Fresh(_)) = quick.lookup(id, key)
        {
            return Ok(Outcome::from(fresh));
        }
        Ok(found)
    };
    let mut settled = Settled {
        outcomes: catalog
            .entries
            .iter()
            .enumerate()
            .map(
                |(index, entry)| match (&entry.resolved, compiled.broken(index)) {
                    (Err(message), _) => Outcome::Broken(message.to_string()),
                    (Ok(_), Some(message)) => Outcome::Broken(message.to_string()),
                    (Ok(r), None) => lookup(&r.example.id, &r.key)
                        .unwrap_or_else(|e| Outcome::Broken(format!("{}: {e}", entry.place))),
                },
            )
            .collect(),
        ..Settled::default()
    };
    let mut chosen: Vec<usize> = (0..catalog.entries.len())
        .filter(|&i| catalog.entries[i].repeat_of.is_none())
        .filter(|&i| wants_measuring(settings.mode, &settled.outcomes[i]))
        .collect();
    if !chosen.is_empty() && settings.mode != Mode::Force {
        keep_other_gpus_records(catalog, &store, bench, &mut chosen, &mut settled);
    }
    if let Some(shard) = settings.shard
        && !chosen.is_empty()
    {
        let all = chosen.len();
        // Positions among the book's examples (first listings, in reading
        // order): what a shard owns depends on the commit alone.
        let position: std::collections::HashMap<usize, usize> = (0..catalog.entries.len())
            .filter(|&i| catalog.entries[i].repeat_of.is_none())
            .enumerate()
            .map(|(position, index)| (index, position))
            .collect();
        chosen.retain(|index| shard.owns(position[index]));
        let _ = writeln!(
            progress,
            "[cuda] shard {shard}: measuring {} of the {all} example(s) to measure, those this shard owns; the other shards measure the rest",
            chosen.len()
        );
    }
    if !chosen.is_empty() {
        measure_chosen(
            catalog,
            settings,
            &chosen,
            quick.as_ref().unwrap_or(&store),
            bench,
            progress,
            &mut settled,
        )?;
    }
    for (index, entry) in catalog.entries.iter().enumerate() {
        if let Some(first) = entry.repeat_of {
            settled.outcomes[index] = settled.outcomes[first].clone();
        }
    }
    Ok(settled)
}

/// On a GPU model other than the book's target, the records that GPU
/// already has for the current code (kept under `results/gpus/<model>/`)
/// are shown instead of measuring again; `chosen` keeps the rest.
fn keep_other_gpus_records(
    catalog: &Catalog,
    store: &Store,
    bench: &mut dyn Bench,
    chosen: &mut Vec<usize>,
    settled: &mut Settled,
) {
    let Some(gpu) = bench.probe() else {
        return;
    };
    if gpu.name == KnownGpu::target().name {
        return;
    }
    chosen.retain(|&index| {
        let Ok(r) = &catalog.entries[index].resolved else {
            return true;
        };
        match store.read_on(&gpu.name, &r.example.id) {
            Ok(Some(record)) if record.key == r.key && !record.quick => {
                settled.outcomes[index] = Outcome::Fresh(record);
                false
            }
            _ => true,
        }
    });
}

/// Measures the `chosen` entries through the one measuring loop
/// ([`session::run`]), which stores each record as soon as it exists.
fn measure_chosen(
    catalog: &Catalog,
    settings: &Settings,
    chosen: &[usize],
    store: &Store,
    bench: &mut dyn Bench,
    progress: &mut dyn Write,
    settled: &mut Settled,
) -> Result<(), MeasureError> {
    let processes = bench.processes();
    let jobs: Vec<Job<'_>> = chosen
        .iter()
        .map(|&index| {
            let resolved = catalog.entries[index]
                .resolved
                .as_ref()
                .expect("only resolved examples are chosen");
            Job {
                example: &resolved.example,
                key: &resolved.key,
                limit: isolate::limit_for(&resolved.example, settings.timeout, processes),
            }
        })
        .collect();
    let mut on_event = |event: Event<'_>| {
        let _ = match event {
            Event::Started {
                gpu,
                count,
                processes,
            } => writeln!(
                progress,
                "[cuda] {}: CC {}, {} SMs; measuring {count} example(s), {}",
                gpu.name,
                gpu.compute_capability,
                gpu.sm_count,
                if settings.quick {
                    format!(
                        "in quick mode: each in 1 process with 1/{processes} of the budget, kept in {}",
                        settings.shown(store.root())
                    )
                } else {
                    format!("each in {processes} processes")
                }
            ),
            Event::Measuring {
                index,
                count,
                example,
                elapsed,
                lane,
            } => writeln!(
                progress,
                "[cuda] measuring {}/{count} {}{} (elapsed {})",
                index + 1,
                example.id,
                lane.map(|l| format!(" on GPU lane {l}"))
                    .unwrap_or_default(),
                cuda_measured_core::report::elapsed(elapsed)
            ),
            Event::Measured {
                index,
                example,
                record,
                stored,
            } => {
                // Named, since on several GPUs outcomes come in any order.
                let _ = writeln!(progress, "[cuda]   {} {}", example.id, outcome_line(record));
                match stored {
                    Some(Err(e)) => writeln!(
                        progress,
                        "[cuda] {}: {}: measured but NOT stored: {}: the page shows this build's figures, the next build measures it again; check that {}/ is writable",
                        catalog.entries[chosen[index]].place,
                        example.id,
                        store_error(settings, e),
                        settings.shown(store.root())
                    ),
                    _ => Ok(()),
                }
            }
            Event::LaneLost {
                lane,
                example,
                record,
                elapsed,
            } => writeln!(
                progress,
                "[cuda] {}",
                cuda_measured_core::report::lane_lost_line(lane, &example.id, record, elapsed)
            ),
        };
    };
    let done = match session::run(&jobs, bench, Some(store), &mut on_event) {
        Ok(done) => done,
        Err(no_gpu) if settings.mode == Mode::Force => {
            return Err(MeasureError::NoGpuForForce {
                count: chosen.len(),
                probe: no_gpu.probe,
            });
        }
        Err(no_gpu) => {
            let _ = writeln!(
                progress,
                "[cuda] {no_gpu}: {} stale or missing example(s) keep their stored state",
                chosen.len()
            );
            return Ok(());
        }
    };
    for (&index, done) in chosen.iter().zip(done) {
        settled.outcomes[index] = match done.stored {
            Some(Err(e)) => Outcome::Unstored {
                record: done.record,
                reason: store_error(settings, &e),
            },
            _ => Outcome::Fresh(done.record),
        };
        settled.measured += 1;
    }
    Ok(())
}

/// A store error as the reader needs it: the file relative to the book,
/// and what went wrong.
fn store_error(settings: &Settings, e: &StoreError) -> String {
    match e {
        StoreError::Io { path, source } => format!("{}: {source}", settings.shown(path)),
        other => other.to_string(),
    }
}

/// Whether `mode` measures an example in this state.
pub fn wants_measuring(mode: Mode, outcome: &Outcome) -> bool {
    match mode {
        Mode::Frozen => false,
        Mode::Auto => outcome.needs_measuring(),
        Mode::Force => !matches!(outcome, Outcome::Broken(_)),
    }
}

/// One line saying how a measurement ended.
fn outcome_line(record: &Record) -> String {
    let mut line = status_words(record.status);
    if record.status.as_expectation() != Some(cuda_measured_core::declaration::Expectation::Pass)
        && record.as_expected()
    {
        line.push_str(", as declared");
    }
    if !record.message.is_empty() {
        line.push_str(&format!(": {}", record.message));
    }
    match &record.cost {
        Some(cost) => line.push_str(&format!(" ({:.1} s: {})", record.wall_s, cost.describe())),
        None => line.push_str(&format!(" ({:.1} s)", record.wall_s)),
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ChapterText;
    use crate::test_support::{KERNEL, chapter, record, settings_in};
    use cuda_measured_core::declaration::Expectation;
    use cuda_measured_core::example::Example;
    use cuda_measured_core::record::GpuFacts;
    use cuda_measured_core::record::Status;
    use std::time::Duration;

    /// A bench that records what it was asked and answers from a script.
    struct FakeBench {
        gpu: Option<GpuFacts>,
        probes: usize,
        measured: Vec<String>,
        status: Status,
        /// A path the bench makes a folder of while measuring, so that the
        /// record then cannot be written there (which stops root too).
        occupy: Option<std::path::PathBuf>,
    }

    impl Bench for FakeBench {
        fn probe(&mut self) -> Option<GpuFacts> {
            // Asks "the GPU" once, as IsolatedBench does.
            self.probes = 1;
            self.gpu.clone()
        }

        fn measure(&mut self, example: &Example, key: &str, _limit: Duration) -> Record {
            self.measured.push(example.id.clone());
            if let Some(path) = &self.occupy {
                std::fs::create_dir_all(path).unwrap();
            }
            let mut r = record(self.status, example.declaration.expect);
            r.example = example.id.clone();
            r.key = key.to_string();
            if self.gpu.is_some() {
                r.gpu = self.gpu.clone();
            }
            r
        }

        fn describe(&self) -> String {
            "the fake".into()
        }
    }

    fn bench(gpu: bool) -> FakeBench {
        FakeBench {
            gpu: gpu.then(|| record(Status::Pass, Expectation::Pass).gpu.unwrap()),
            probes: 0,
            measured: Vec::new(),
            status: Status::Pass,
            occupy: None,
        }
    }

    /// The chapter of [`book`].
    fn chapters() -> Vec<ChapterText> {
        let text = ["a", "b", "c"]
            .iter()
            .map(|id| format!("```cuda run id={id}\n{KERNEL}```\n\n"))
            .collect::<String>()
            + "```cuda run\n```\n";
        vec![chapter("ch.md", &text)]
    }

    /// A book with a fresh example `a`, a stale `b`, a missing `c` and a broken one.
    fn book(mode: Mode) -> (tempfile::TempDir, Settings, Catalog) {
        let (dir, mut settings) = settings_in(&[]);
        settings.mode = mode;
        let catalog = Catalog::build(&settings, &chapters());
        let store = Store::new(&settings.results, KnownGpu::target().name);
        for (id, key) in [
            (
                "a",
                catalog.entries[0].resolved.as_ref().unwrap().key.as_str(),
            ),
            ("b", "old"),
        ] {
            let mut r = record(Status::Pass, Expectation::Pass);
            r.example = id.into();
            r.key = key.into();
            store.write(&r).unwrap();
        }
        (dir, settings, catalog)
    }

    fn kinds(settled: &Settled) -> Vec<&'static str> {
        settled
            .outcomes
            .iter()
            .map(|o| match o {
                Outcome::Fresh(_) => "fresh",
                Outcome::Unstored { .. } => "unstored",
                Outcome::Stale(_) => "stale",
                Outcome::Missing => "missing",
                Outcome::Broken(_) => "broken",
            })
            .collect()
    }

    // On another GPU model, what it measures is kept beside the target's
    // records, and the next build shows it instead of measuring again; the
    // target's records are never touched.
    #[test]
    fn another_gpu_measures_once_and_keeps_its_records_apart() {
        let (_dir, settings, catalog) = book(Mode::Auto);
        let mut other = bench(true);
        other.gpu.as_mut().unwrap().name = "NVIDIA H100 PCIe".into();
        let run = |fake: &mut FakeBench| {
            settle(
                &catalog,
                &settings,
                &Compiled::default(),
                fake,
                &mut Vec::new(),
            )
            .unwrap()
        };
        let first = run(&mut other);
        assert_eq!(other.measured, ["b", "c"]);
        assert_eq!(kinds(&first), ["fresh", "fresh", "fresh", "broken"]);
        assert!(
            settings
                .results
                .join("gpus/nvidia-h100-pcie/c.json")
                .is_file()
        );
        let key_c = &catalog.entries[2].resolved.as_ref().unwrap().key;
        assert!(matches!(
            Store::new(&settings.results, KnownGpu::target().name)
                .lookup("c", key_c)
                .unwrap(),
            cuda_measured_core::store::Lookup::Missing
        ));
        other.measured.clear();
        let second = run(&mut other);
        assert!(
            other.measured.is_empty(),
            "measured again: {:?}",
            other.measured
        );
        assert_eq!(kinds(&second), ["fresh", "fresh", "fresh", "broken"]);
        let Outcome::Fresh(c) = &second.outcomes[2] else {
            unreachable!()
        };
        assert_eq!(c.gpu.as_ref().unwrap().name, "NVIDIA H100 PCIe");
    }

    // Frozen never asks for a GPU; the store alone decides each state.
    #[test]
    fn frozen_reads_the_store_only() {
        let (_dir, settings, catalog) = book(Mode::Frozen);
        let mut fake = bench(true);
        let settled = settle(
            &catalog,
            &settings,
            &Compiled::default(),
            &mut fake,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(kinds(&settled), ["fresh", "stale", "missing", "broken"]);
        assert_eq!(fake.probes, 0);
    }

    // Auto measures exactly the stale and missing examples and stores them at once.
    #[test]
    fn auto_measures_stale_and_missing_and_stores_them() {
        let (_dir, settings, catalog) = book(Mode::Auto);
        let mut fake = bench(true);
        let mut progress = Vec::new();
        let settled = settle(
            &catalog,
            &settings,
            &Compiled::default(),
            &mut fake,
            &mut progress,
        )
        .unwrap();
        assert_eq!(fake.measured, ["b", "c"]);
        assert_eq!(fake.probes, 1);
        assert_eq!(kinds(&settled), ["fresh", "fresh", "fresh", "broken"]);
        let key_c = &catalog.entries[2].resolved.as_ref().unwrap().key;
        let stored = Store::new(&settings.results, KnownGpu::target().name)
            .lookup("c", key_c)
            .unwrap();
        assert!(matches!(
            stored,
            cuda_measured_core::store::Lookup::Fresh(_)
        ));
        let progress = String::from_utf8(progress).unwrap();
        assert!(
            progress.contains("[cuda] measuring 2/2 c (elapsed 0:00)"),
            "{progress}"
        );
    }

    // A record that cannot be written (its file's place taken by a folder
    // while it was measured) is said at once on the terminal, marks the
    // example's outcome, and fails a strict build naming the example.
    #[test]
    fn unstored_records_are_reported_marked_and_fail_strict() {
        let (_dir, settings, catalog) = book(Mode::Auto);
        let occupied = |fake: FakeBench| FakeBench {
            occupy: Some(settings.results.join("c.json")),
            ..fake
        };
        let mut fake = occupied(bench(true));
        let mut progress = Vec::new();
        let settled = settle(
            &catalog,
            &settings,
            &Compiled::default(),
            &mut fake,
            &mut progress,
        )
        .unwrap();
        assert_eq!(fake.measured, ["b", "c"]);
        assert_eq!(kinds(&settled), ["fresh", "fresh", "unstored", "broken"]);
        let Outcome::Unstored { record, reason } = &settled.outcomes[2] else {
            unreachable!("checked above")
        };
        assert_eq!(record.example, "c");
        assert!(reason.starts_with("results/c.json: "), "{reason}");
        let progress = String::from_utf8(progress).unwrap();
        let line = format!(
            "[cuda] src/ch.md:31: c: measured but NOT stored: {reason}: the page shows this build's figures, the next build measures it again; check that results/ is writable\n"
        );
        assert!(progress.contains(&line), "{line:?} not in:\n{progress}");

        std::fs::remove_dir(settings.results.join("c.json")).unwrap();
        let mut strict = settings.clone();
        strict.strict = crate::config::Strict::On;
        let pass = crate::book_pass::run_pass(
            &chapters(),
            &strict,
            crate::render::Target::Html,
            &mut occupied(bench(true)),
            &mut Vec::new(),
        )
        .unwrap();
        assert!(pass.report.fails(strict.strict, strict.on_failure));
        let problems: Vec<String> = pass.report.problems.iter().map(|p| p.to_string()).collect();
        let want = format!(
            "src/ch.md:31: c: measured but NOT stored ({reason}): this build's pages show figures that no file holds; make sure results/c.json can be written and build again"
        );
        assert!(problems.contains(&want), "{want:?} not in {problems:#?}");
        let summary = crate::book_pass::summary_line(&pass.catalog, &pass.settled);
        assert!(
            summary.ends_with("1 measured in this build, 1 of them NOT stored"),
            "{summary}"
        );
        assert!(
            pass.chapters[0].contains(
                "<p class=\"cm-unstored\"><strong>Measured in this build but NOT stored</strong> ("
            ),
            "{}",
            pass.chapters[0]
        );
    }

    // Without a GPU, auto keeps stored states and says why.
    #[test]
    fn auto_without_gpu_keeps_states() {
        let (_dir, settings, catalog) = book(Mode::Auto);
        let mut fake = bench(false);
        let mut progress = Vec::new();
        let settled = settle(
            &catalog,
            &settings,
            &Compiled::default(),
            &mut fake,
            &mut progress,
        )
        .unwrap();
        assert_eq!(kinds(&settled), ["fresh", "stale", "missing", "broken"]);
        assert!(
            String::from_utf8(progress)
                .unwrap()
                .contains("no GPU answered the fake")
        );
    }

    // Force measures every resolved example, and refuses to run without a GPU.
    #[test]
    fn force_measures_everything_or_fails() {
        let (_dir, settings, catalog) = book(Mode::Force);
        let mut fake = bench(true);
        settle(
            &catalog,
            &settings,
            &Compiled::default(),
            &mut fake,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(fake.measured, ["a", "b", "c"]);
        let err = settle(
            &catalog,
            &settings,
            &Compiled::default(),
            &mut bench(false),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("measure 3 examples"), "{err}");
    }

    // An example compiling broke (a compile error, or a compile time-out)
    // is never measured, not even by force: the GPU never compiles it
    // again, and its outcome is the compile step's message.
    #[test]
    fn what_compiling_broke_is_never_measured() {
        let timed_out =
            "src/ch.md:5: compile time-out: NVRTC did not finish within 5 s".to_string();
        let compiled = Compiled::with_broken(vec![None, Some(timed_out.clone()), None, None]);
        for mode in [Mode::Force, Mode::Auto] {
            let (_dir, settings, catalog) = book(mode);
            let mut fake = bench(true);
            let settled =
                settle(&catalog, &settings, &compiled, &mut fake, &mut Vec::new()).unwrap();
            assert!(
                !fake.measured.contains(&"b".to_string()),
                "{:?}",
                fake.measured
            );
            assert!(
                fake.measured.contains(&"c".to_string()),
                "{:?}",
                fake.measured
            );
            assert!(
                matches!(&settled.outcomes[1], Outcome::Broken(m) if *m == timed_out),
                "{:?}",
                kinds(&settled)
            );
        }
    }

    // Shards 1/2 and 2/2 of a forced build measure a, c and b: each
    // example once, the book's first and third owned by shard 1; the
    // progress says which share is measured here.
    #[test]
    fn each_shard_measures_its_share_of_the_examples_to_measure() {
        let mut measured = Vec::new();
        for k in 1..=2 {
            let (_dir, mut settings, catalog) = book(Mode::Force);
            settings.shard = Some(crate::shard::Shard { index: k, count: 2 });
            let mut fake = bench(true);
            let mut progress = Vec::new();
            settle(
                &catalog,
                &settings,
                &Compiled::default(),
                &mut fake,
                &mut progress,
            )
            .unwrap();
            let progress = String::from_utf8(progress).unwrap();
            let share = if k == 1 { 2 } else { 1 };
            assert!(
                progress.contains(&format!(
                    "shard {k}/2: measuring {share} of the 3 example(s) to measure, those this shard owns"
                )),
                "{progress}"
            );
            measured.push(fake.measured);
        }
        assert_eq!(measured, [vec!["a", "c"], vec!["b"]]);
    }

    // A failing example that declared its failure says so in the progress line.
    #[test]
    fn outcome_lines() {
        let mut r = record(Status::Wrong, Expectation::Wrong);
        assert_eq!(
            outcome_line(&r),
            "wrong, as declared: sum off by 12.5 (3.5 s)"
        );
        r.expect = Expectation::Pass;
        assert_eq!(outcome_line(&r), "wrong: sum off by 12.5 (3.5 s)");
        assert_eq!(
            outcome_line(&record(Status::Pass, Expectation::Pass)),
            "pass (3.5 s)"
        );
        // Where the time went, when the processes said.
        let mut costed = record(Status::Pass, Expectation::Pass);
        costed.cost = Some(cuda_measured_core::record::Cost {
            start_s: 0.4,
            context_s: 1.0,
            timing_s: 2.1,
            ..Default::default()
        });
        assert_eq!(
            outcome_line(&costed),
            "pass (3.5 s: start 0.4, context 1.0, compile 0.0, support 0.0, ceilings 0.0, inputs 0.0, checks 0.0, timing 2.1)"
        );
    }
}
