//! Runs an example in child `cuda-runner measure` processes with a time
//! limit, so that a kernel that faults, hangs or kills its process becomes a
//! stored result with its log, and the next example still runs. The method
//! measures every example in several processes one after another and pools
//! their samples ([`crate::pool`]).

use crate::child::run_limited;
use crate::example::Example;
use crate::launcher::Launcher;
use crate::method::{DEFAULT_BUDGET_S, POLICY};
use crate::pool::{self, Measured};
use crate::record::{GpuFacts, Record, Status};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Seconds a measuring process is given beyond its part of the example's
/// measuring budget, for what is not measuring: its start, context,
/// compilation, the ceilings, inputs, references and checks (the stored
/// records' costs show a few seconds a process; the first of a session
/// also measures the ceilings).
pub const SETUP_MARGIN: Duration = Duration::from_secs(60);

/// Default time limit of each process of an example, when neither its
/// header nor the configuration sets one: one process's part of the
/// default measuring budget plus [`SETUP_MARGIN`], so that an example
/// that overruns its budget is stopped near it.
pub const DEFAULT_LIMIT: Duration = Duration::from_millis(
    (DEFAULT_BUDGET_S * 1000.0) as u64 / POLICY.processes as u64 + SETUP_MARGIN.as_millis() as u64,
);

/// The time limit of each of an example's `processes` processes: its
/// header's `timeout_s`; else, for a header that declares `budget_s`, the
/// larger of `fallback` and one process's part of that budget plus
/// [`SETUP_MARGIN`]; else `fallback`.
pub fn limit_for(example: &Example, fallback: Duration, processes: usize) -> Duration {
    let decl = &example.declaration;
    if let Some(limit) = decl.timeout_s {
        return Duration::from_secs(limit);
    }
    match decl.budget_s {
        Some(budget) => {
            let share = Duration::from_secs_f64(budget as f64 / processes.max(1) as f64);
            fallback.max(share + SETUP_MARGIN)
        }
        None => fallback,
    }
}

/// What the measuring children of a session get: how many measure each
/// example, and their environment.
#[derive(Debug, Clone)]
pub struct ChildEnv<'a> {
    /// Processes that measure each example, one after another
    /// ([`crate::session::Config::processes`]).
    pub processes: usize,
    /// Where the processes share prepared inputs and references
    /// ([`crate::problem::cache`]); without it each prepares its own.
    pub data_dir: Option<&'a Path>,
    /// The `CUDA_VISIBLE_DEVICES` of the children, when a session measures
    /// on several GPUs side by side ([`visible_device`]); else inherited.
    pub visible_device: Option<String>,
    /// How the children are started (directly, or behind a sandbox's
    /// command prefix: the Run service's).
    pub launcher: Launcher,
    /// The seed the children draw timed inputs from instead of the book's
    /// fixed one (the Run service's, fresh per request); `None` for the
    /// book, whose inputs and records stay as they are.
    pub seed: Option<u64>,
}

impl Default for ChildEnv<'_> {
    /// The method's processes, no shared folder, the GPUs inherited.
    fn default() -> Self {
        ChildEnv {
            processes: crate::diagnostics::processes(None),
            data_dir: None,
            visible_device: None,
            launcher: Launcher::direct(),
            seed: None,
        }
    }
}

/// The `CUDA_VISIBLE_DEVICES` value that shows a child only the `lane`-th
/// GPU this process sees: the lane-th entry of the process's own list
/// (`inherited`, as the variable reads) when there is one, else the
/// ordinal itself; `None` when the list has fewer entries.
pub fn visible_device(lane: usize, inherited: Option<&str>) -> Option<String> {
    match inherited.map(str::trim).filter(|v| !v.is_empty()) {
        Some(list) => list.split(',').map(str::trim).nth(lane).map(str::to_string),
        None => Some(lane.to_string()),
    }
}

/// How many GPUs `runner_exe` sees (`cuda-runner device --count`), 0 when
/// it cannot say.
pub fn probe_gpu_count(runner_exe: &Path) -> usize {
    let mut command = Command::new(runner_exe);
    command.args(["device", "--count"]);
    crate::lifetime::die_with_this_process(&mut command);
    run_limited(&mut command, Duration::from_secs(60), 1 << 10, 0)
        .ok()
        .filter(|f| f.status.is_some_and(|s| s.success()))
        .and_then(|f| {
            String::from_utf8_lossy(f.stdout.bytes())
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Measures `example` in `children.processes` child processes of
/// `runner_exe`, one after another, and returns the pooled record. Never
/// fails: every way a child can end is a [`Status`], and the first child
/// that fails to run every size (compile error, launch error, fault, time
/// limit) ends the example with its record. `limit` applies to each child.
/// `gpu` is the device a [`probe_gpu`] found: a child stopped at its time
/// limit never reports the GPU it ran on, so its record names this one.
/// `children` says where the processes share prepared inputs and
/// references, which GPU they see, how they are started and from which
/// seed they draw ([`ChildEnv`]). `quick` measures in the
/// first process only, with its usual share of the budget, and marks the
/// record quick (the author's preview).
pub fn measure_isolated(
    runner_exe: &Path,
    example: &Example,
    key: &str,
    limit: Duration,
    gpu: Option<&GpuFacts>,
    children: &ChildEnv<'_>,
    quick: bool,
) -> Record {
    measure_with(
        example,
        key,
        gpu,
        children.processes,
        quick,
        children.seed,
        |job| run_child(runner_exe, job, limit, children),
    )
}

/// Measures `example` in `processes` processes one after another, each
/// run by `one`, and pools their samples (the first process only when
/// `quick`); the first process that fails ends the example with its record.
pub(crate) fn measure_with(
    example: &Example,
    key: &str,
    gpu: Option<&GpuFacts>,
    processes: usize,
    quick: bool,
    seed: Option<u64>,
    mut one: impl FnMut(&Job<'_>) -> Result<Measured, ChildFailure>,
) -> Record {
    let started = Instant::now();
    let run = if quick { 1 } else { processes };
    let mut runs = Vec::new();
    let mut failed = None;
    for process in 0..run {
        let job = Job {
            example,
            key,
            process,
            processes,
            seed,
        };
        match one(&job) {
            Ok(m) if pool::is_final_failure(m.record.status) => {
                failed = Some(m.record);
                break;
            }
            Ok(m) => runs.push(m),
            Err(failure) => {
                failed = Some(failure.into_record(example, key));
                break;
            }
        }
    }
    let mut record = match failed {
        Some(r) => r,
        None => pool::pool(runs),
    };
    if record.gpu.is_none() {
        record.gpu = gpu.cloned();
    }
    record.quick = quick;
    // The example's wall time as the parent saw it, process starts
    // included; what the processes do not account for is their start.
    let wall_s = started.elapsed().as_secs_f64();
    if let Some(cost) = &mut record.cost {
        cost.start_s = (wall_s - record.wall_s).max(0.0);
    }
    record.wall_s = wall_s;
    record
}

/// How a measuring child ended without a result the parent can read.
#[derive(Debug, thiserror::Error)]
pub enum ChildFailure {
    /// The runner could not be started (or its job not written).
    #[error(
        "could not start `{} measure` ({error}); build it with `cargo build --release -p cuda-runner` or set `runner` in [preprocessor.cuda]",
        runner.display()
    )]
    NotStarted {
        /// The runner as named.
        runner: std::path::PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The child ran past its time limit and was stopped.
    #[error("did not finish within {} s and was stopped; {}", limit.as_secs(), why_stopped(*printed))]
    TimedOut {
        /// The limit it ran past.
        limit: Duration,
        /// Bytes of device printf output, when past [`PRINTF_CAP`]: the
        /// likely reason then.
        printed: Option<u64>,
        /// Its stderr and device printf output.
        log: String,
    },
    /// The child wrote a result this runner cannot parse.
    #[error("the measuring process wrote a result this runner cannot read ({error})")]
    UnreadableResult {
        /// The parser's complaint.
        error: serde_json::Error,
        /// Its stderr and device printf output.
        log: String,
    },
    /// The child ended without writing a result (it crashed or was killed).
    #[error("the measuring process ended ({exit}) without a result")]
    NoResult {
        /// How it ended.
        exit: std::process::ExitStatus,
        /// Its stderr and device printf output.
        log: String,
    },
}

impl ChildFailure {
    /// The status the example's record gets.
    pub fn status(&self) -> Status {
        match self {
            ChildFailure::TimedOut { .. } => Status::Timeout,
            ChildFailure::NotStarted { .. }
            | ChildFailure::UnreadableResult { .. }
            | ChildFailure::NoResult { .. } => Status::Fault,
        }
    }

    /// What the child printed (stderr, then device printf output).
    pub fn log(&self) -> &str {
        match self {
            ChildFailure::NotStarted { .. } => "",
            ChildFailure::TimedOut { log, .. }
            | ChildFailure::UnreadableResult { log, .. }
            | ChildFailure::NoResult { log, .. } => log,
        }
    }

    /// The record of `example` that this failure ends it with.
    pub fn into_record(self, example: &Example, key: &str) -> Record {
        Record::failure(example, key, self.status(), self.to_string(), self.log())
    }
}

/// Why a child that ran past its limit was stopped: a printf flood past
/// the cap when it `printed` one, else a kernel that never ends.
fn why_stopped(printed: Option<u64>) -> String {
    match printed {
        // A line or two of output is no reason; a flood past the cap is.
        Some(bytes) => format!(
            "it had printed {bytes} bytes with device printf: printf from every thread costs microseconds a line, so print from a few threads or at a small size"
        ),
        None => "a kernel that never ends (a loop whose exit no thread reaches, a barrier some threads skip) looks like this".to_string(),
    }
}

/// Bytes of a kernel's device `printf` output kept for the record's log
/// (the same cap as the GPU kernel leaderboards); the rest is read and
/// counted, never stored, so a kernel that prints a line per element
/// neither blocks its process on a full pipe nor grows the runner.
pub const PRINTF_CAP: usize = 16 * 1024;
/// Bytes of a child's stderr kept (its own diagnostics, normally a line).
const STDERR_CAP: usize = 64 * 1024;

fn run_child(
    runner_exe: &Path,
    job: &Job<'_>,
    limit: Duration,
    children: &ChildEnv<'_>,
) -> Result<Measured, ChildFailure> {
    let job = serde_json::to_vec(job).expect("jobs serialise");
    let failed_to_start = |e| spawn_failure(runner_exe, e);
    let mut job_file = tempfile::NamedTempFile::new().map_err(failed_to_start)?;
    job_file.write_all(&job).map_err(failed_to_start)?;
    // The result travels in a file: the child's stdout is the kernel's
    // device printf output, captured below.
    let result_file = tempfile::NamedTempFile::new().map_err(failed_to_start)?;
    let mut command = children.launcher.command(runner_exe);
    command
        .arg("measure")
        .arg("--job")
        .arg(job_file.path())
        .arg("--out")
        .arg(result_file.path());
    // Only the folder this session owns, never one inherited.
    match children.data_dir {
        Some(dir) => command.env(crate::problem::cache::DATA_DIR_VAR, dir),
        None => command.env_remove(crate::problem::cache::DATA_DIR_VAR),
    };
    if let Some(device) = &children.visible_device {
        command.env("CUDA_VISIBLE_DEVICES", device);
    }
    crate::lifetime::die_with_this_process(&mut command);
    let finished =
        run_limited(&mut command, limit, PRINTF_CAP, STDERR_CAP).map_err(failed_to_start)?;
    let err = finished.stderr.text("stderr");
    let printf = finished.stdout.text("device printf output");
    let Some(exit) = finished.status else {
        let total = finished.stdout.total();
        return Err(ChildFailure::TimedOut {
            limit,
            printed: (total > PRINTF_CAP as u64).then_some(total),
            log: join_logs(&err, &printf),
        });
    };
    let text = std::fs::read_to_string(result_file.path()).unwrap_or_default();
    match serde_json::from_str::<Measured>(text.trim()) {
        Ok(mut measured) => {
            measured.record.log = join_logs(&measured.record.log, &printf);
            Ok(measured)
        }
        Err(error) if !text.trim().is_empty() => Err(ChildFailure::UnreadableResult {
            error,
            log: join_logs(&err, &printf),
        }),
        Err(_) => Err(ChildFailure::NoResult {
            exit,
            log: join_logs(&err, &printf),
        }),
    }
}

/// Two log parts, separated by a blank line when both are present.
pub(crate) fn join_logs(first: &str, second: &str) -> String {
    match (first.trim().is_empty(), second.trim().is_empty()) {
        (_, true) => first.to_string(),
        (true, false) => second.to_string(),
        (false, false) => format!("{}\n\n{second}", first.trim_end()),
    }
}

fn spawn_failure(runner_exe: &Path, error: std::io::Error) -> ChildFailure {
    ChildFailure::NotStarted {
        runner: runner_exe.to_path_buf(),
        error,
    }
}

/// The job a child reads: the example, its key, and which of how many
/// processes the child is.
#[derive(serde::Serialize)]
pub(crate) struct Job<'a> {
    example: &'a Example,
    key: &'a str,
    pub(crate) process: usize,
    processes: usize,
    /// The seed of the timed inputs, when not the book's.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

/// The job as the child parses it.
#[derive(serde::Deserialize)]
pub struct OwnedJob {
    /// The example.
    pub example: Example,
    /// Its key.
    pub key: String,
    /// This child's index, from 0.
    pub process: usize,
    /// How many children measure the example.
    pub processes: usize,
    /// The seed of the timed inputs; `None`: the book's
    /// ([`crate::problem::draw::INPUT_SEED`]).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// Asks `cuda-runner device --json` for the GPU's facts; `None` when there
/// is no usable GPU (no driver, no device, or the probe failed).
pub fn probe_gpu(runner_exe: &Path) -> Option<GpuFacts> {
    probe_gpu_seeing(runner_exe, None)
}

/// [`probe_gpu`] with the runner shown only `visible_device` (a lane's
/// GPU, [`visible_device`]) when given.
pub fn probe_gpu_seeing(runner_exe: &Path, visible_device: Option<&str>) -> Option<GpuFacts> {
    probe_gpu_launched(&Launcher::direct(), runner_exe, visible_device)
}

/// [`probe_gpu_seeing`] with the probe started by `launcher`.
pub fn probe_gpu_launched(
    launcher: &Launcher,
    runner_exe: &Path,
    visible_device: Option<&str>,
) -> Option<GpuFacts> {
    let mut command = launcher.command(runner_exe);
    command.args(["device", "--json"]);
    if let Some(device) = visible_device {
        command.env("CUDA_VISIBLE_DEVICES", device);
    }
    crate::lifetime::die_with_this_process(&mut command);
    let finished = run_limited(&mut command, Duration::from_secs(60), 1 << 20, 0).ok()?;
    if !finished.status?.success() {
        return None;
    }
    serde_json::from_slice(finished.stdout.bytes()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::Example;
    use std::os::unix::fs::PermissionsExt;

    const BODY: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

    // A process's time limit is the header's `timeout_s`; else, with a
    // declared budget, the fallback or the process's part of the budget
    // plus the setup margin, whichever is longer; else the fallback. The
    // default limit is a process's part of the default budget plus the
    // margin, not the two minutes it was.
    #[test]
    fn the_time_limit_follows_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let example = |body: &str| {
            Example::from_inline(dir.path(), "src/ch.md", dir.path(), body, 1, "demo").unwrap()
        };
        let with = |key: &str| example(&BODY.replace("[[launch]]", &format!("{key}\n[[launch]]")));
        let fallback = Duration::from_secs(120);
        assert_eq!(limit_for(&example(BODY), fallback, 8), fallback);
        assert_eq!(
            limit_for(&with("timeout_s = 20"), fallback, 8),
            Duration::from_secs(20)
        );
        assert_eq!(limit_for(&with("budget_s = 80"), fallback, 8), fallback);
        assert_eq!(
            limit_for(&with("budget_s = 800"), fallback, 8),
            Duration::from_secs(100) + SETUP_MARGIN
        );
        assert_eq!(DEFAULT_LIMIT, Duration::from_millis(3750) + SETUP_MARGIN);
    }

    /// A stand-in for `cuda-runner measure`: prints `printed` bytes on
    /// stdout (a kernel's printf), then copies `result` to its `--out`.
    fn fake_child(dir: &Path, printed: u64, result: &Measured) -> std::path::PathBuf {
        let template = dir.join("result.json");
        std::fs::write(&template, serde_json::to_vec(result).unwrap()).unwrap();
        let script = dir.join("fake-runner");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nhead -c {printed} /dev/zero | tr '\\0' 'x'\ncp '{}' \"$5\"\n",
                template.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    fn example(dir: &Path) -> Example {
        Example::from_inline(dir, "src/ch.md", dir, BODY, 1, "demo").unwrap()
    }

    fn job(example: &Example) -> Job<'_> {
        Job {
            example,
            key: "k",
            process: 0,
            processes: 1,
            seed: None,
        }
    }

    /// The record of a kernel that wrote NaN: judged wrong, error infinite.
    fn nan_result(example: &Example) -> Measured {
        let mut record = Record::failure(
            example,
            "k",
            Status::Wrong,
            "wrong at n = 1: expected 0.5, got NaN",
            "",
        );
        record.edge_checks.push(crate::record::EdgeCheck {
            n: crate::size::Size(1),
            rows: None,
            dims: None,
            sweep: None,
            error: f64::INFINITY,
            tolerance: 1e-7,
            pass: false,
        });
        Measured {
            record,
            samples_us: vec![vec![f64::NAN]],
        }
    }

    // A kernel that writes NaN stays `wrong` across the child protocol
    // (JSON has no NaN or infinity); it used to become a `fault`.
    #[test]
    fn non_finite_results_survive_the_child_protocol() {
        let dir = tempfile::tempdir().unwrap();
        let ex = example(dir.path());
        let script = fake_child(dir.path(), 0, &nan_result(&ex));
        let m = run_child(
            &script,
            &job(&ex),
            Duration::from_secs(60),
            &ChildEnv::default(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(m.record.status, Status::Wrong);
        assert!(m.record.message.ends_with("got NaN"));
        assert_eq!(m.record.edge_checks[0].error, f64::INFINITY);
        assert!(m.samples_us[0][0].is_nan());
        assert!(m.record.log.is_empty());
    }

    /// A stand-in runner that runs `body` (a shell script) and writes no result.
    fn failing_child(dir: &Path, body: &str) -> std::path::PathBuf {
        let script = dir.join("failing-runner");
        std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    // A child that ends without a result is a fault with its stderr as the
    // log; one past its limit a timeout that says why it was stopped; a
    // runner that is not there a fault naming how to build it. Each keeps
    // the message text records have always had.
    #[test]
    fn each_way_a_child_fails_has_its_status_message_and_log() {
        let dir = tempfile::tempdir().unwrap();
        let ex = example(dir.path());
        let limit = Duration::from_secs(60);
        let crashed = failing_child(dir.path(), "echo 'it broke' >&2\nexit 3");
        let e = run_child(&crashed, &job(&ex), limit, &ChildEnv::default()).unwrap_err();
        assert!(matches!(e, ChildFailure::NoResult { .. }), "{e:?}");
        let record = e.into_record(&ex, "k");
        assert_eq!(record.status, Status::Fault);
        assert_eq!(
            record.message,
            "the measuring process ended (exit status: 3) without a result"
        );
        assert_eq!(record.log.trim(), "stderr:\nit broke");

        let hangs = failing_child(dir.path(), "sleep 30");
        let e = run_child(
            &hangs,
            &job(&ex),
            Duration::from_secs(1),
            &ChildEnv::default(),
        )
        .unwrap_err();
        assert_eq!(e.status(), Status::Timeout);
        assert!(
            e.to_string()
                .starts_with("did not finish within 1 s and was stopped; a kernel that never ends"),
            "{e}"
        );

        let missing = dir.path().join("no-such-runner");
        let e = run_child(&missing, &job(&ex), limit, &ChildEnv::default()).unwrap_err();
        assert_eq!(e.status(), Status::Fault);
        assert!(e.log().is_empty());
        assert!(
            e.to_string().starts_with(&format!(
                "could not start `{} measure` (No such file or directory",
                missing.display()
            )),
            "{e}"
        );
    }

    // A child of a lane sees only its GPU: the lane's entry of this
    // process's own CUDA_VISIBLE_DEVICES, or the ordinal when it has none.
    #[test]
    fn each_lane_shows_its_child_one_gpu() {
        assert_eq!(visible_device(1, None).as_deref(), Some("1"));
        assert_eq!(visible_device(0, Some("")).as_deref(), Some("0"));
        assert_eq!(visible_device(1, Some("2, 3")).as_deref(), Some("3"));
        assert_eq!(
            visible_device(0, Some("GPU-8905907f,GPU-e76e1db6")).as_deref(),
            Some("GPU-8905907f")
        );
        assert_eq!(visible_device(2, Some("2,3")), None);
    }

    // The child gets the lane's CUDA_VISIBLE_DEVICES (the stand-in prints
    // it as its device printf output, which lands in the log).
    #[test]
    fn a_lane_child_is_started_with_its_visible_device() {
        let dir = tempfile::tempdir().unwrap();
        let ex = example(dir.path());
        let template = dir.path().join("result.json");
        std::fs::write(&template, serde_json::to_vec(&nan_result(&ex)).unwrap()).unwrap();
        let script = dir.path().join("fake-runner");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf 'sees %s' \"$CUDA_VISIBLE_DEVICES\"\ncp '{}' \"$5\"\n",
                template.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env = ChildEnv {
            processes: 1,
            data_dir: None,
            visible_device: Some("GPU-1234".into()),
            ..ChildEnv::default()
        };
        let m = run_child(&script, &job(&ex), Duration::from_secs(60), &env)
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(m.record.log.contains("sees GPU-1234"), "{}", m.record.log);
    }

    // A printf flood (50 MB) is drained, cut to 16 KiB in the log, and the
    // result is still read: no hang, no unbounded memory.
    #[test]
    fn printf_floods_are_capped_and_the_result_still_judged() {
        let dir = tempfile::tempdir().unwrap();
        let ex = example(dir.path());
        let script = fake_child(dir.path(), 50_000_000, &nan_result(&ex));
        let m = run_child(
            &script,
            &job(&ex),
            Duration::from_secs(60),
            &ChildEnv::default(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(m.record.status, Status::Wrong);
        let log = &m.record.log;
        assert!(
            log.starts_with("device printf output (first 16 KiB of 50000000 bytes shown):\nxxxx"),
            "{}",
            &log[..80]
        );
        assert!(log.len() < PRINTF_CAP + 200, "{}", log.len());
        assert!(log.ends_with("[... 49983616 more bytes not kept]"));
    }
}
