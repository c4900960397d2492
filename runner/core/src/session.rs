//! The one measuring loop. The book build (`mdbook-cuda`), `cuda-runner
//! run` and any later front end (a Run service) hand it the examples to
//! measure and a [`Bench`]; it asks the bench for the GPU once, measures
//! the examples one after another, writes each record to the store as soon
//! as it exists (when given one, so a run killed halfway loses nothing
//! measured before), and reports each step as an [`Event`] for the front
//! end to show as it likes.

use crate::example::Example;
use crate::isolate;
use crate::record::{GpuFacts, Record};
use crate::store::{Store, StoreError};
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod lanes;

/// Where measurements come from: the real GPU through `cuda-runner`
/// children ([`IsolatedBench`]), or a stand-in in tests.
pub trait Bench {
    /// The usable GPU, if any. Called only when something needs
    /// measuring, possibly more than once in a session (the book asks
    /// before choosing what to measure, then the session asks): a bench
    /// asks the GPU once and answers again from that.
    fn probe(&mut self) -> Option<GpuFacts>;
    /// Measures one example; every way it can end is a record.
    fn measure(&mut self, example: &Example, key: &str, limit: Duration) -> Record;
    /// How the bench is named in messages.
    fn describe(&self) -> String;
    /// Benches that measure side by side, one per GPU, when the machine
    /// has several to measure on; none (the default) measures one example
    /// after another here. Called after [`Bench::probe`] found a GPU.
    fn lanes(&mut self) -> Vec<Box<dyn Bench + Send>> {
        Vec::new()
    }
    /// Whether the GPU still answers as it did when probed, asked afresh.
    /// A lane asks after an example ends in a fault, a launch error or a
    /// time-out, and stops taking work when it does not
    /// (the `lanes` module). A bench that cannot lose its GPU keeps the
    /// default.
    fn still_answers(&mut self) -> bool {
        true
    }
    /// How many processes measure each example, for the front end to say;
    /// the method's count unless the bench was told otherwise.
    fn processes(&self) -> usize {
        crate::method::POLICY.processes
    }
}

/// The environment variable that caps how many GPUs a session measures on
/// side by side (`1`: one after another on the first GPU).
pub const GPUS_VAR: &str = "CUDA_MEASURED_GPUS";

/// What a session is told rather than reads: the settings a front end
/// reads once, at its edge ([`Config::from_env`]), and hands the bench.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Processes that measure each example (`CUDA_MEASURED_PROCESSES`,
    /// [`crate::diagnostics::ENV_PROCESSES`]; else the method's count).
    pub processes: usize,
    /// At most this many GPUs side by side ([`GPUS_VAR`]); `None`: every
    /// GPU of the model first probed.
    pub gpus: Option<usize>,
    /// The front end's own `CUDA_VISIBLE_DEVICES`, from which each lane
    /// takes its GPU ([`isolate::visible_device`]).
    pub visible_devices: Option<String>,
    /// Measure on warm workers that stay up across examples
    /// ([`crate::workers`]; [`WARM_VAR`]`=0` turns them off): the default.
    /// Off, every process of every example is a fresh `cuda-runner
    /// measure`.
    pub warm: bool,
}

/// The share of the method a quick measurement of the Run service
/// samples with ([`Config::quick_service`]): one process's part when the
/// method is split between this many.
pub const QUICK_SHARE: usize = 16;

/// The environment variable that turns warm workers off (`0`/`false`):
/// each process of each example is then started afresh.
pub const WARM_VAR: &str = "CUDA_MEASURED_WARM";

impl Default for Config {
    /// The method's processes, every GPU, no device list.
    fn default() -> Self {
        Config {
            processes: crate::diagnostics::processes(None),
            gpus: None,
            visible_devices: None,
            warm: true,
        }
    }
}

impl Config {
    /// The settings as this process's environment gives them: the one
    /// place the session's variables are read, by the front ends. A
    /// [`GPUS_VAR`] that is not a number is said on stderr and measures on
    /// every GPU.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok();
        let mut config = Config::from_values(
            var(crate::diagnostics::ENV_PROCESSES).as_deref(),
            var(GPUS_VAR).as_deref(),
            var("CUDA_VISIBLE_DEVICES"),
        );
        if let Some(v) = var(WARM_VAR) {
            config.warm = !matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            );
        }
        config
    }

    /// The Run service's preset, with [`IsolatedBench::quick`] on: one
    /// process on one GPU (the one `CUDA_VISIBLE_DEVICES` shows first), on
    /// a warm worker, sampling as one of [`QUICK_SHARE`] processes would
    /// (a sixteenth of the method's GPU time, samples, time-out and
    /// budget), where the book pools eight processes' full shares; its
    /// records are marked quick.
    pub fn quick_service() -> Self {
        Config {
            processes: QUICK_SHARE,
            gpus: Some(1),
            visible_devices: None,
            warm: true,
        }
    }

    /// The settings given the variables' values (`None`: not set).
    pub fn from_values(
        processes: Option<&str>,
        gpus: Option<&str>,
        visible_devices: Option<String>,
    ) -> Self {
        let gpus = gpus.and_then(|v| match v.trim().parse::<usize>() {
            Ok(k) => Some(k),
            Err(_) => {
                eprintln!("[cuda] {GPUS_VAR}={v} is not a number of GPUs; measuring on every GPU");
                None
            }
        });
        Config {
            processes: crate::diagnostics::processes(processes),
            gpus,
            visible_devices,
            warm: true,
        }
    }
}

/// The real bench: `cuda-runner` child processes, warm workers that
/// stay up across the session's examples unless [`Config::warm`] is off.
#[derive(Debug)]
pub struct IsolatedBench {
    /// The runner executable (path, or name on PATH).
    pub runner: PathBuf,
    /// The GPU the probe found, for records of children stopped before they
    /// could report it (time-outs).
    pub probed: Option<GpuFacts>,
    /// The folder where the measuring processes share prepared inputs and
    /// references for the whole session ([`crate::problem::cache`]);
    /// removed when the last clone of the bench is dropped.
    data: Option<std::sync::Arc<tempfile::TempDir>>,
    /// Measure in quick mode: one process, records marked quick.
    pub quick: bool,
    /// The children's `CUDA_VISIBLE_DEVICES`, for a lane of a session on
    /// several GPUs; `None` leaves it inherited.
    visible_device: Option<String>,
    /// What the front end read at its edge.
    config: Config,
    /// This bench's warm workers, started on first use; a clone (a lane)
    /// starts its own.
    workers: Option<crate::workers::Workers>,
    /// How its children are started ([`IsolatedBench::launched_by`]).
    launcher: crate::launcher::Launcher,
    /// The seed the children draw timed inputs from, when not the book's
    /// (the Run service sets a fresh one per request).
    pub seed: Option<u64>,
    /// Whether the probe makes a folder for the processes to share
    /// prepared data in (the default); off, each prepares its own.
    share_data: bool,
}

impl Clone for IsolatedBench {
    fn clone(&self) -> Self {
        IsolatedBench {
            runner: self.runner.clone(),
            probed: self.probed.clone(),
            data: self.data.clone(),
            quick: self.quick,
            visible_device: self.visible_device.clone(),
            config: self.config.clone(),
            workers: None,
            launcher: self.launcher.clone(),
            seed: self.seed,
            share_data: self.share_data,
        }
    }
}

impl IsolatedBench {
    /// A bench that runs `runner` as `config` says.
    pub fn new(runner: PathBuf, config: Config) -> Self {
        IsolatedBench {
            runner,
            probed: None,
            data: None,
            quick: false,
            visible_device: None,
            config,
            workers: None,
            launcher: crate::launcher::Launcher::direct(),
            seed: None,
            share_data: true,
        }
    }

    /// The bench with its children (probes, measuring processes, warm
    /// workers) started by `launcher`.
    pub fn launched_by(mut self, launcher: crate::launcher::Launcher) -> Self {
        self.launcher = launcher;
        self
    }

    /// The bench without a shared data folder: every process prepares its
    /// inputs itself (a service whose inputs are drawn afresh for every
    /// request would only fill one).
    pub fn without_shared_data(mut self) -> Self {
        self.share_data = false;
        self
    }
}

impl Bench for IsolatedBench {
    fn probe(&mut self) -> Option<GpuFacts> {
        if self.probed.is_some() {
            return self.probed.clone();
        }
        self.probed = isolate::probe_gpu_launched(&self.launcher, &self.runner, None);
        if self.probed.is_some() && self.data.is_none() && self.share_data {
            // Without the folder every process prepares its own data.
            self.data = tempfile::Builder::new()
                .prefix("cuda-measured-data-")
                .tempdir()
                .ok()
                .map(std::sync::Arc::new);
        }
        self.probed.clone()
    }

    fn measure(&mut self, example: &Example, key: &str, limit: Duration) -> Record {
        if self.config.warm {
            let env = isolate::ChildEnv {
                processes: self.config.processes,
                data_dir: self.data.as_ref().map(|d| d.path()),
                visible_device: self.visible_device.clone(),
                launcher: self.launcher.clone(),
                seed: self.seed,
            };
            let workers = self
                .workers
                .get_or_insert_with(|| crate::workers::Workers::new(&self.runner, &env));
            return crate::workers::measure_warm(
                workers,
                example,
                key,
                limit,
                self.probed.as_ref(),
                &env,
                self.quick,
            );
        }
        isolate::measure_isolated(
            &self.runner,
            example,
            key,
            limit,
            self.probed.as_ref(),
            &isolate::ChildEnv {
                processes: self.config.processes,
                data_dir: self.data.as_ref().map(|d| d.path()),
                visible_device: self.visible_device.clone(),
                launcher: self.launcher.clone(),
                seed: self.seed,
            },
            self.quick,
        )
    }

    // One lane per GPU the runner sees, at most CUDA_MEASURED_GPUS of
    // them, each probed on its own: a GPU that does not answer, or is not
    // the model the session probed first, gets no lane (its children
    // would fail at once and drain the queue with failure records, or file
    // records under another model). Each lane names its own GPU in the
    // records of children that never report theirs. The lanes share the
    // session's data folder (prepared data is the same on every GPU; each
    // GPU measures its own ceilings).
    fn lanes(&mut self) -> Vec<Box<dyn Bench + Send>> {
        let Some(first) = self.probed.clone() else {
            return Vec::new();
        };
        if self.visible_device.is_some() {
            return Vec::new();
        }
        let cap = self.config.gpus.unwrap_or(usize::MAX);
        let count = isolate::probe_gpu_count(&self.runner).min(cap);
        if count < 2 {
            return Vec::new();
        }
        let inherited = self.config.visible_devices.as_deref();
        let lanes: Vec<Box<dyn Bench + Send>> = (0..count)
            .filter_map(|lane| isolate::visible_device(lane, inherited))
            .filter_map(|device| {
                let facts = isolate::probe_gpu_seeing(&self.runner, Some(&device))?;
                (facts.name == first.name && facts.compute_capability == first.compute_capability)
                    .then(|| {
                        Box::new(IsolatedBench {
                            visible_device: Some(device),
                            probed: Some(facts),
                            ..self.clone()
                        }) as Box<dyn Bench + Send>
                    })
            })
            .collect();
        if lanes.len() < 2 { Vec::new() } else { lanes }
    }

    fn describe(&self) -> String {
        format!("`{} device --json`", self.runner.display())
    }

    fn processes(&self) -> usize {
        self.config.processes
    }

    // The same GPU (by UUID, where the driver gives one) answers a fresh
    // probe through the same CUDA_VISIBLE_DEVICES.
    fn still_answers(&mut self) -> bool {
        let Some(probed) = &self.probed else {
            return false;
        };
        isolate::probe_gpu_launched(&self.launcher, &self.runner, self.visible_device.as_deref())
            .is_some_and(|now| now.name == probed.name && now.uuid == probed.uuid)
    }
}

/// One example to measure.
#[derive(Debug, Clone, Copy)]
pub struct Job<'a> {
    /// The example.
    pub example: &'a Example,
    /// Its current key.
    pub key: &'a str,
    /// The time limit of each of its processes.
    pub limit: Duration,
}

/// What a session does, as it happens.
#[derive(Debug)]
pub enum Event<'a> {
    /// The GPU answered; `count` examples will be measured, each by
    /// `processes` child processes.
    Started {
        /// The GPU.
        gpu: &'a GpuFacts,
        /// Examples to measure.
        count: usize,
        /// Processes per example.
        processes: usize,
    },
    /// Example `index` (from 0) of `count` starts (on lane `lane` of a
    /// session on several GPUs).
    Measuring {
        /// Its position.
        index: usize,
        /// How many in all.
        count: usize,
        /// The example.
        example: &'a Example,
        /// Since the session started.
        elapsed: Duration,
        /// The lane (one per GPU) it runs on, when the session measures
        /// on several GPUs side by side.
        lane: Option<usize>,
    },
    /// Example `index` ended with `record`; `stored` is where it was
    /// written or why it could not be (`None` without a store).
    Measured {
        /// Its position.
        index: usize,
        /// The example.
        example: &'a Example,
        /// Its record.
        record: &'a Record,
        /// The store's answer.
        stored: Option<&'a Result<PathBuf, StoreError>>,
    },
    /// On several GPUs, lane `lane`'s GPU stopped answering after `example`
    /// ended with `record` (a fault, launch error or time-out): the lane
    /// takes no more work and the example goes to another lane.
    LaneLost {
        /// The lane.
        lane: usize,
        /// The example it was measuring.
        example: &'a Example,
        /// How that measurement ended (not stored).
        record: &'a Record,
        /// Since the session started.
        elapsed: Duration,
    },
}

/// How one job ended.
#[derive(Debug)]
pub struct Done {
    /// The record.
    pub record: Record,
    /// Where it was stored, or why not; `None` without a store.
    pub stored: Option<Result<PathBuf, StoreError>>,
}

/// No GPU answered the bench's probe; nothing was measured.
#[derive(Debug, thiserror::Error)]
#[error("no GPU answered {probe}")]
pub struct NoGpu {
    /// How the GPU was looked for.
    pub probe: String,
}

/// Measures `jobs` in order on `bench`, storing each record in `store` (if
/// any) as soon as it exists, and telling `on_event` each step. Returns one
/// [`Done`] per job, in order.
pub fn run(
    jobs: &[Job<'_>],
    bench: &mut dyn Bench,
    store: Option<&Store>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Vec<Done>, NoGpu> {
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let gpu = bench.probe().ok_or_else(|| NoGpu {
        probe: bench.describe(),
    })?;
    on_event(Event::Started {
        gpu: &gpu,
        count: jobs.len(),
        processes: bench.processes(),
    });
    let started = Instant::now();
    let lanes = if jobs.len() > 1 {
        bench.lanes()
    } else {
        Vec::new()
    };
    if lanes.len() > 1 {
        return Ok(lanes::side_by_side(jobs, lanes, store, on_event, started));
    }
    let mut done = Vec::with_capacity(jobs.len());
    for (index, job) in jobs.iter().enumerate() {
        tell_measuring(index, jobs, started, None, on_event);
        let record = bench.measure(job.example, job.key, job.limit);
        done.push(conclude(index, job, record, store, on_event));
    }
    Ok(done)
}

/// Tells that job `index` starts (on `lane`, on several GPUs).
pub(crate) fn tell_measuring(
    index: usize,
    jobs: &[Job<'_>],
    started: Instant,
    lane: Option<usize>,
    on_event: &mut dyn FnMut(Event<'_>),
) {
    on_event(Event::Measuring {
        index,
        count: jobs.len(),
        example: jobs[index].example,
        elapsed: started.elapsed(),
        lane,
    });
}

/// Stores job `index`'s record (when there is a store), tells it, and
/// returns how the job ended.
pub(crate) fn conclude(
    index: usize,
    job: &Job<'_>,
    record: Record,
    store: Option<&Store>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Done {
    let stored = store.map(|s| s.write(&record));
    on_event(Event::Measured {
        index,
        example: job.example,
        record: &record,
        stored: stored.as_ref(),
    });
    Done { record, stored }
}

/// What the session's and the lanes' tests share: a stand-in GPU's facts
/// and examples of one tiny kernel.
#[cfg(test)]
pub(crate) mod stand_in {
    use crate::example::Example;
    use crate::record::GpuFacts;

    const BODY: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

    /// The facts a stand-in bench reports for its GPU.
    pub fn gpu() -> GpuFacts {
        GpuFacts {
            name: "Stand-in".into(),
            compute_capability: "9.0".into(),
            sm_count: 132,
            l2_bytes: 1,
            memory_bytes: 1,
            peak_gbs: 1.0,
            peak_source: "datasheet".into(),
            driver: "0".into(),
            cuda_driver_api: "13.0".into(),
            nvrtc: "13.0".into(),
            uuid: None,
        }
    }

    /// Examples of one tiny kernel in `dir`, named `ids`.
    pub fn examples(dir: &std::path::Path, ids: &[&str]) -> Vec<Example> {
        ids.iter()
            .map(|id| Example::from_inline(dir, "src/ch.md", dir, BODY, 1, id).unwrap())
            .collect()
    }

    /// `count` such examples, named e0, e1, ...
    pub fn numbered(dir: &std::path::Path, count: usize) -> Vec<Example> {
        let ids: Vec<String> = (0..count).map(|i| format!("e{i}")).collect();
        examples(dir, &ids.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// A job per example, all under `key`, each with a time limit of 1 s.
    pub fn jobs<'a>(examples: &'a [Example], key: &'a str) -> Vec<super::Job<'a>> {
        examples
            .iter()
            .map(|e| super::Job {
                example: e,
                key,
                limit: std::time::Duration::from_secs(1),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;

    /// Answers with a GPU (or none) and a passing record per example.
    struct Stand {
        gpu: bool,
        probes: usize,
    }

    impl Bench for Stand {
        fn probe(&mut self) -> Option<GpuFacts> {
            self.probes += 1;
            self.gpu.then(stand_in::gpu)
        }

        fn measure(&mut self, example: &Example, key: &str, _limit: Duration) -> Record {
            Record::failure(example, key, Status::Pass, "", "")
        }

        fn describe(&self) -> String {
            "the stand-in".into()
        }
    }

    fn examples(dir: &std::path::Path) -> Vec<Example> {
        stand_in::examples(dir, &["a", "b"])
    }

    // Each example is measured in order, stored at once, and every step is
    // told: started, then measuring and measured per example.
    #[test]
    fn measures_in_order_stores_each_and_tells_every_step() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            dir.path().join("results"),
            crate::limits::KnownGpu::target().name,
        );
        let ex = examples(dir.path());
        let jobs = stand_in::jobs(&ex, "k1");
        let mut bench = Stand {
            gpu: true,
            probes: 0,
        };
        let mut told = Vec::new();
        let done = run(&jobs, &mut bench, Some(&store), &mut |e| {
            told.push(match e {
                Event::Started { count, .. } => format!("started {count}"),
                Event::Measuring { index, example, .. } => {
                    format!("measuring {index} {}", example.id)
                }
                Event::Measured {
                    example, stored, ..
                } => {
                    // Stored before it is told.
                    assert!(store.read(&example.id).unwrap().is_some());
                    format!("measured {} stored {}", example.id, stored.unwrap().is_ok())
                }
                Event::LaneLost { .. } => panic!("a session on one GPU has no lane to lose"),
            })
        })
        .unwrap();
        assert_eq!(
            told,
            [
                "started 2",
                "measuring 0 a",
                "measured a stored true",
                "measuring 1 b",
                "measured b stored true"
            ]
        );
        assert_eq!(done.len(), 2);
        assert_eq!(bench.probes, 1);
    }

    /// A GPU that is two lanes, each a stand-in that names itself in its
    /// records and takes a little time, so that both lanes are busy.
    struct TwoGpus;

    /// A lane whose first measurement waits until the other lane has
    /// started one too, so that both lanes surely take work.
    struct Lane(usize, std::sync::Arc<std::sync::Barrier>, bool);

    impl Bench for Lane {
        fn probe(&mut self) -> Option<GpuFacts> {
            None
        }
        fn measure(&mut self, example: &Example, key: &str, _limit: Duration) -> Record {
            if !self.2 {
                self.2 = true;
                self.1.wait();
            }
            Record::failure(example, key, Status::Pass, format!("lane {}", self.0), "")
        }
        fn describe(&self) -> String {
            format!("lane {}", self.0)
        }
    }

    impl Bench for TwoGpus {
        fn probe(&mut self) -> Option<GpuFacts> {
            Stand {
                gpu: true,
                probes: 0,
            }
            .probe()
        }
        fn measure(&mut self, _: &Example, _: &str, _: Duration) -> Record {
            panic!("a session on two GPUs measures on its lanes")
        }
        fn describe(&self) -> String {
            "two stand-in GPUs".into()
        }
        fn lanes(&mut self) -> Vec<Box<dyn Bench + Send>> {
            let both = std::sync::Arc::new(std::sync::Barrier::new(2));
            vec![
                Box::new(Lane(0, both.clone(), false)),
                Box::new(Lane(1, both, false)),
            ]
        }
    }

    // On several GPUs every example is measured once, on some lane, both
    // lanes work, each example's start is told before its end, every
    // record is stored, and the results come back in the jobs' order.
    #[test]
    fn several_gpus_share_the_examples_and_lose_none() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            dir.path().join("results"),
            crate::limits::KnownGpu::target().name,
        );
        let ex = stand_in::numbered(dir.path(), 8);
        let jobs = stand_in::jobs(&ex, "k");
        let mut started = vec![false; jobs.len()];
        let mut lanes_seen = std::collections::BTreeSet::new();
        let done = run(&jobs, &mut TwoGpus, Some(&store), &mut |e| match e {
            Event::Measuring { index, lane, .. } => {
                started[index] = true;
                lanes_seen.insert(lane.expect("a lane is named"));
            }
            Event::Measured { index, stored, .. } => {
                assert!(started[index], "example {index} ended before it started");
                assert!(stored.unwrap().is_ok());
            }
            Event::Started { .. } => {}
            Event::LaneLost { .. } => panic!("no lane's GPU stops answering here"),
        })
        .unwrap();
        assert_eq!(lanes_seen.into_iter().collect::<Vec<_>>(), [0, 1]);
        for (i, d) in done.iter().enumerate() {
            assert_eq!(d.record.example, format!("e{i}"));
            assert!(d.record.message.starts_with("lane "));
            assert!(store.read(&format!("e{i}")).unwrap().is_some());
        }
    }

    // Without a GPU nothing is measured and the error names the probe;
    // with nothing to measure the GPU is not even asked.
    #[test]
    fn no_gpu_measures_nothing_and_no_jobs_ask_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ex = examples(dir.path());
        let jobs = [Job {
            example: &ex[0],
            key: "k",
            limit: Duration::from_secs(1),
        }];
        let mut bench = Stand {
            gpu: false,
            probes: 0,
        };
        let err = run(&jobs, &mut bench, None, &mut |_| panic!("nothing to tell")).unwrap_err();
        assert_eq!(err.to_string(), "no GPU answered the stand-in");
        assert!(run(&[], &mut bench, None, &mut |_| {}).unwrap().is_empty());
        assert_eq!(bench.probes, 1);
    }
}

#[cfg(test)]
mod probe_tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    // The runner is asked for the GPU once however often the bench is
    // asked: the book asks before choosing, the session again.
    #[test]
    fn an_isolated_bench_asks_the_gpu_once() {
        let dir = tempfile::tempdir().unwrap();
        let runner = dir.path().join("runner");
        let calls = dir.path().join("calls");
        std::fs::write(
            &runner,
            format!(
                "#!/bin/sh\necho probe >> '{}'\necho '{{\"name\": \"NVIDIA H200\", \"compute_capability\": \"9.0\", \"sm_count\": 132, \"l2_bytes\": 1, \"memory_bytes\": 1, \"peak_gbs\": 4800.0, \"peak_source\": \"datasheet\", \"driver\": \"0\", \"cuda_driver_api\": \"13.0\", \"nvrtc\": \"13.0\"}}'\n",
                calls.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut bench = IsolatedBench::new(runner, Config::default());
        let first = bench.probe();
        assert_eq!(first.as_ref().map(|g| g.name.as_str()), Some("NVIDIA H200"));
        assert_eq!(bench.probe(), first);
        assert_eq!(std::fs::read_to_string(&calls).unwrap(), "probe\n");
    }

    /// A stand-in runner that sees `models.len()` GPUs and answers
    /// `device --json` for the one CUDA_VISIBLE_DEVICES shows with that
    /// model (an empty name: the GPU does not answer).
    fn runner_with_gpus(dir: &std::path::Path, models: &[&str]) -> std::path::PathBuf {
        let facts = |name: &str| {
            format!(
                "{{\"name\": \"{name}\", \"compute_capability\": \"9.0\", \"sm_count\": 132, \"l2_bytes\": 1, \"memory_bytes\": 1, \"peak_gbs\": 4800.0, \"peak_source\": \"datasheet\", \"driver\": \"0\", \"cuda_driver_api\": \"13.0\", \"nvrtc\": \"13.0\"}}"
            )
        };
        let mut script = format!(
            "#!/bin/sh\nif [ \"$2\" = \"--count\" ]; then echo {}; exit 0; fi\ncase \"${{CUDA_VISIBLE_DEVICES:-0}}\" in\n",
            models.len()
        );
        for (i, m) in models.iter().enumerate() {
            if m.is_empty() {
                script += &format!("  {i}) exit 1;;\n");
            } else {
                script += &format!("  {i}) echo '{}';;\n", facts(m));
            }
        }
        script += "esac\n";
        let runner = dir.join("runner");
        std::fs::write(&runner, script).unwrap();
        std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
        runner
    }

    // Every GPU that answers as the first one did gets a lane, naming its
    // own facts; a GPU that does not answer, or is another model, gets
    // none, and one lane left is no side-by-side session at all.
    #[test]
    fn lanes_are_the_gpus_that_answer_as_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let three = runner_with_gpus(dir.path(), &["NVIDIA H200", "NVIDIA H200", "NVIDIA H200"]);
        let mut bench = IsolatedBench::new(three, Config::default());
        assert!(bench.probe().is_some());
        assert_eq!(bench.lanes().len(), 3);

        let dir = tempfile::tempdir().unwrap();
        let mixed = runner_with_gpus(
            dir.path(),
            &["NVIDIA H200", "NVIDIA H100 PCIe", "", "NVIDIA H200"],
        );
        let mut bench = IsolatedBench::new(mixed, Config::default());
        assert!(bench.probe().is_some());
        let mut lanes = bench.lanes();
        assert_eq!(lanes.len(), 2);
        assert!(
            lanes
                .iter_mut()
                .all(|l| l.probe().unwrap().name == "NVIDIA H200")
        );

        let dir = tempfile::tempdir().unwrap();
        let two = runner_with_gpus(dir.path(), &["NVIDIA H200", "NVIDIA H100 PCIe"]);
        let mut bench = IsolatedBench::new(two, Config::default());
        assert!(bench.probe().is_some());
        assert!(bench.lanes().is_empty());
    }

    // The session takes its settings as given, never from the environment:
    // CUDA_MEASURED_GPUS=2 on three GPUs makes two lanes, a device list of
    // two entries makes two lanes of those GPUs, and the processes count
    // reaches the event and the children.
    #[test]
    fn the_config_handed_in_decides_lanes_and_processes() {
        let dir = tempfile::tempdir().unwrap();
        let three = runner_with_gpus(dir.path(), &["NVIDIA H200", "NVIDIA H200", "NVIDIA H200"]);
        let config = Config::from_values(Some("3"), Some("2"), None);
        assert_eq!((config.processes, config.gpus), (3, Some(2)));
        let mut bench = IsolatedBench::new(three.clone(), config);
        assert!(bench.probe().is_some());
        assert_eq!(bench.processes(), 3);
        assert_eq!(bench.lanes().len(), 2);

        let listed = Config::from_values(None, None, Some("2,1".into()));
        let mut bench = IsolatedBench::new(three, listed);
        assert!(bench.probe().is_some());
        assert_eq!(bench.lanes().len(), 2);

        // Not numbers: the method's processes (at least one), every GPU.
        let odd = Config::from_values(Some("many"), Some("all"), None);
        assert_eq!(odd, Config::default());
        assert_eq!(Config::from_values(Some("0"), None, None).processes, 1);
    }
}
