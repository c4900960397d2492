//! Warm measuring workers: `cuda-runner worker` processes that stay up
//! across examples, so that a process start, a CUDA context, NVRTC and the
//! support kernels are paid once per worker and session instead of once per
//! example and process. The method still measures every example in
//! [`crate::method::Policy::processes`] processes one after another and
//! pools their samples: worker `k` is the `k`-th process of every example,
//! each a process of its own with its own context, allocations and code
//! placement.
//!
//! The protocol, one job at a time:
//! - the parent writes a job as one line of JSON on the worker's stdin
//!   ([`WorkerJob`]: the example, its key, which process, and the file the
//!   result goes to);
//! - the worker measures it, writes the [`Measured`] JSON to that file,
//!   flushes the kernel's device `printf` output, and writes the session's
//!   sentinel line on stdout ([`sentinel`]); everything before the sentinel
//!   is the job's device `printf` output, capped as a child's is;
//! - a job that does not end within its limit kills the worker (a kernel
//!   that never ends holds the GPU); a worker whose job did not pass is
//!   given back too (a fault leaves its context unusable, and a fresh
//!   process is what the next example deserves); the next job starts a
//!   fresh one.
//!
//! Workers die with their parent ([`crate::lifetime`]) and end when their
//! stdin closes.

use crate::child::Captured;
use crate::example::Example;
use crate::isolate::{ChildEnv, ChildFailure, PRINTF_CAP, join_logs};
use crate::pool::Measured;
use crate::record::{GpuFacts, Record, Status};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Bytes of a worker's stderr kept, its last ones (its diagnostics when it
/// dies).
const STDERR_TAIL: usize = 64 * 1024;

/// How long a killed worker's output is still read for.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(5);

/// The line a worker writes on stdout after each job, `nonce` being the
/// one its parent gave it (so that no kernel's `printf` can end a job).
pub fn sentinel(nonce: &str) -> String {
    format!("\n\u{1e}cuda-measured worker {nonce} done\u{1e}\n")
}

/// One job as a worker reads it from its stdin, one line of JSON.
#[derive(Debug, Serialize, Deserialize)]
pub struct WorkerJob<J> {
    /// The job a measuring child gets ([`crate::isolate::OwnedJob`]).
    pub job: J,
    /// Where the worker writes the [`Measured`] JSON.
    pub out: PathBuf,
}

/// What the stdout reader of a worker reports.
enum Event {
    /// A job ended: what it printed before the sentinel.
    Done(Captured),
    /// Stdout closed (the worker exited or was killed): what the job
    /// printed until then.
    Closed(Captured),
}

/// One running worker.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    events: Receiver<Event>,
    stderr: Arc<Mutex<Tail>>,
}

/// The last bytes of a stream.
#[derive(Debug, Default)]
struct Tail {
    bytes: Vec<u8>,
    total: u64,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > STDERR_TAIL {
            let cut = self.bytes.len() - STDERR_TAIL;
            self.bytes.drain(..cut);
        }
    }

    /// The text kept since the last call, headed as a child's stderr is.
    fn take_text(&mut self) -> String {
        if self.total == 0 {
            return String::new();
        }
        let kept = String::from_utf8_lossy(&self.bytes).into_owned();
        let text = if self.total as usize <= self.bytes.len() {
            format!("stderr:\n{kept}")
        } else {
            format!(
                "stderr (last {} KiB of {} bytes shown):\n{kept}",
                STDERR_TAIL / 1024,
                self.total
            )
        };
        *self = Tail::default();
        text
    }
}

impl Worker {
    fn spawn(runner_exe: &Path, env: &ChildEnv<'_>, nonce: &str) -> std::io::Result<Worker> {
        let mut command = env.launcher.command(runner_exe);
        command.args(["worker", "--sentinel", nonce]);
        match env.data_dir {
            Some(dir) => command.env(crate::problem::cache::DATA_DIR_VAR, dir),
            None => command.env_remove(crate::problem::cache::DATA_DIR_VAR),
        };
        if let Some(device) = &env.visible_device {
            command.env("CUDA_VISIBLE_DEVICES", device);
        }
        crate::lifetime::die_with_this_process(&mut command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = spawn_retrying_busy(&mut command)?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut stderr_pipe = child.stderr.take().expect("piped");
        let (sender, events) = mpsc::channel();
        let marker = sentinel(nonce).into_bytes();
        std::thread::spawn(move || read_jobs_output(stdout, &marker, &sender));
        let stderr = Arc::new(Mutex::new(Tail::default()));
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match stderr_pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => tail.lock().expect("stderr tail").push(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Ok(Worker {
            child,
            stdin,
            events,
            stderr,
        })
    }

    /// Whether the process is still running.
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn stderr_text(&self) -> String {
        self.stderr.lock().expect("stderr tail").take_text()
    }

    /// Runs one job: sends it, waits at most `limit` for its end, reads
    /// its result. `Err` when the worker cannot be used any more (it was
    /// killed at the limit, it died, or its result cannot be read).
    fn run<J: Serialize>(
        &mut self,
        runner_exe: &Path,
        job: &J,
        limit: Duration,
    ) -> Result<Measured, ChildFailure> {
        let result_file =
            tempfile::NamedTempFile::new().map_err(|error| ChildFailure::NotStarted {
                runner: runner_exe.to_path_buf(),
                error,
            })?;
        let line = serde_json::to_string(&WorkerJob {
            job,
            out: result_file.path().to_path_buf(),
        })
        .expect("jobs serialise");
        let sent = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        let event = match sent {
            Ok(()) => self.events.recv_timeout(limit),
            // A closed pipe: the worker is gone; its stdout says what it printed.
            Err(_) => self
                .events
                .recv_timeout(DRAIN_AFTER_KILL)
                .map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(Event::Done(printed)) => {
                let printf = printed.text("device printf output");
                let text = std::fs::read_to_string(result_file.path()).unwrap_or_default();
                match serde_json::from_str::<Measured>(text.trim()) {
                    Ok(mut measured) => {
                        measured.record.log = join_logs(&measured.record.log, &printf);
                        Ok(measured)
                    }
                    Err(error) => Err(ChildFailure::UnreadableResult {
                        error,
                        log: join_logs(&self.stderr_text(), &printf),
                    }),
                }
            }
            Ok(Event::Closed(printed)) => Err(self.died(&printed.text("device printf output"))),
            Err(RecvTimeoutError::Disconnected) => Err(self.died("")),
            Err(RecvTimeoutError::Timeout) => {
                // Past the limit: the kernel holds the GPU; only ending the
                // process frees it. What it printed until then is read.
                self.kill();
                let printed = match self.events.recv_timeout(DRAIN_AFTER_KILL) {
                    Ok(Event::Closed(printed) | Event::Done(printed)) => printed,
                    Err(_) => Captured::default(),
                };
                Err(ChildFailure::TimedOut {
                    limit,
                    printed: (printed.total() > PRINTF_CAP as u64).then_some(printed.total()),
                    log: join_logs(&self.stderr_text(), &printed.text("device printf output")),
                })
            }
        }
    }
}

impl Worker {
    /// The failure of a worker that ended in a job, `printf` being what
    /// the job printed.
    fn died(&mut self, printf: &str) -> ChildFailure {
        use std::os::unix::process::ExitStatusExt;
        // A worker that cannot be waited for is reported as ended plainly.
        let exit = self
            .child
            .wait()
            .unwrap_or_else(|_| std::process::ExitStatus::from_raw(0));
        ChildFailure::NoResult {
            exit,
            log: join_logs(&self.stderr_text(), printf),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Spawns `command`, trying again for a moment while the executable is
/// "busy" (ETXTBSY: a runner just written, its file still open in a process
/// another thread forked and has not yet replaced by exec).
fn spawn_retrying_busy(command: &mut Command) -> std::io::Result<Child> {
    let mut tries = 0;
    loop {
        match command.spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Reads a worker's stdout, cutting it into jobs at each `marker`: what
/// came before a marker is that job's output (the first [`PRINTF_CAP`]
/// bytes kept). Ends when the stream does, reporting what the last job
/// printed.
fn read_jobs_output(mut stdout: impl Read, marker: &[u8], events: &mpsc::Sender<Event>) {
    let finder = memchr::memmem::Finder::new(marker);
    let mut printed = Captured::with_cap(PRINTF_CAP);
    // Bytes not yet known to be the job's: a marker may be cut between reads.
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        pending.extend_from_slice(&buf[..n]);
        while let Some(at) = finder.find(&pending) {
            printed.push(&pending[..at]);
            pending.drain(..at + marker.len());
            let done = std::mem::replace(&mut printed, Captured::with_cap(PRINTF_CAP));
            if events.send(Event::Done(done)).is_err() {
                return;
            }
        }
        // All but the bytes that could start a marker are the job's.
        let keep = (marker.len() - 1).min(pending.len());
        let cut = pending.len() - keep;
        printed.push(&pending[..cut]);
        pending.drain(..cut);
    }
    printed.push(&pending);
    let _ = events.send(Event::Closed(printed));
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers")
            .field("runner_exe", &self.runner_exe)
            .field(
                "running",
                &self.slots.iter().filter(|w| w.is_some()).count(),
            )
            .field("started", &self.started)
            .finish()
    }
}

/// The warm workers of one GPU: worker `k` measures the `k`-th process's
/// share of every example. Started on first use, started afresh after a
/// job that did not pass; all killed when dropped.
pub struct Workers {
    runner_exe: PathBuf,
    data_dir: Option<PathBuf>,
    visible_device: Option<String>,
    launcher: crate::launcher::Launcher,
    nonce: String,
    slots: Vec<Option<Worker>>,
    started: usize,
}

impl Workers {
    /// Workers of `runner_exe` whose environment `env` gives.
    pub fn new(runner_exe: &Path, env: &ChildEnv<'_>) -> Workers {
        Workers {
            runner_exe: runner_exe.to_path_buf(),
            data_dir: env.data_dir.map(Path::to_path_buf),
            visible_device: env.visible_device.clone(),
            launcher: env.launcher.clone(),
            nonce: nonce(),
            slots: Vec::new(),
            started: 0,
        }
    }

    /// How many worker processes were started so far (fresh ones after a
    /// failure included).
    pub fn started(&self) -> usize {
        self.started
    }

    /// Runs `job` on worker `process` (started when it is not running)
    /// within `limit`. A job that fails, or whose record is not a pass or
    /// a wrong answer, leaves no worker behind.
    pub fn run<J: Serialize>(
        &mut self,
        process: usize,
        job: &J,
        limit: Duration,
    ) -> Result<Measured, ChildFailure> {
        if self.slots.len() <= process {
            self.slots.resize_with(process + 1, || None);
        }
        if let Some(worker) = &mut self.slots[process]
            && !worker.alive()
        {
            self.slots[process] = None;
        }
        if self.slots[process].is_none() {
            let env = ChildEnv {
                data_dir: self.data_dir.as_deref(),
                visible_device: self.visible_device.clone(),
                launcher: self.launcher.clone(),
                ..ChildEnv::default()
            };
            let worker = Worker::spawn(&self.runner_exe, &env, &self.nonce).map_err(|error| {
                ChildFailure::NotStarted {
                    runner: self.runner_exe.clone(),
                    error,
                }
            })?;
            self.started += 1;
            self.slots[process] = Some(worker);
        }
        let worker = self.slots[process].as_mut().expect("started above");
        let outcome = worker.run(&self.runner_exe, job, limit);
        let keep = matches!(&outcome, Ok(m) if keeps_worker(m.record.status));
        if !keep {
            self.slots[process] = None;
        }
        outcome
    }
}

/// [`crate::isolate::measure_isolated`] on warm workers: process `k`
/// of the example is worker `k`, which has measured examples before it;
/// `children` gives the count of processes and the inputs' seed (the
/// workers were started with the rest of it).
pub fn measure_warm(
    workers: &mut Workers,
    example: &Example,
    key: &str,
    limit: Duration,
    gpu: Option<&GpuFacts>,
    children: &ChildEnv<'_>,
    quick: bool,
) -> Record {
    let (processes, seed) = (children.processes, children.seed);
    crate::isolate::measure_with(example, key, gpu, processes, quick, seed, |job| {
        workers.run(job.process, job, limit)
    })
}

/// Whether a worker whose job ended with `status` may take the next job:
/// its context is sound after a pass, a wrong answer or a compile error.
pub fn keeps_worker(status: Status) -> bool {
    matches!(status, Status::Pass | Status::Wrong | Status::CompileError)
}

/// A session's sentinel nonce: unpredictable to the kernels whose output
/// it ends.
fn nonce() -> String {
    format!(
        "{:016x}{:016x}",
        rand::random::<u64>(),
        rand::random::<u64>()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A stand-in for `cuda-runner worker`, a shell script: for each line
    /// on stdin it runs `body` with `$out` the result file (parsed from the
    /// job's JSON) and `$sentinel` the sentinel, and counts its jobs in
    /// `jobs` next to it.
    fn fake_worker(dir: &Path, body: &str) -> PathBuf {
        let script = dir.join("fake-runner");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n\
                 nonce=\"$3\"\n\
                 sentinel=\"$(printf '\\n\\036cuda-measured worker %s done\\036' \"$nonce\")\"\n\
                 echo started >> '{dir}/starts'\n\
                 while read -r line; do\n\
                   out=$(printf '%s' \"$line\" | sed 's/.*\"out\":\"\\([^\"]*\\)\".*/\\1/')\n\
                   echo job >> '{dir}/jobs'\n\
                   {body}\n\
                 done\n",
                dir = dir.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    fn measured(status: Status) -> Measured {
        let mut record = crate::record::test_records::record("demo", "k");
        record.status = status;
        record.message = "measured".into();
        Measured {
            record,
            samples_us: vec![vec![1.0, 2.0]],
        }
    }

    fn result_file(dir: &Path, status: Status) -> PathBuf {
        let path = dir.join(format!("{status:?}.json"));
        std::fs::write(&path, serde_json::to_vec(&measured(status)).unwrap()).unwrap();
        path
    }

    fn count(dir: &Path, file: &str) -> usize {
        std::fs::read_to_string(dir.join(file))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    fn env() -> ChildEnv<'static> {
        ChildEnv::default()
    }

    // One worker takes job after job: started once, each job's printf
    // output its own, the result read from the job's file.
    #[test]
    fn a_worker_stays_up_across_jobs_and_each_job_gets_its_own_printf() {
        let dir = tempfile::tempdir().unwrap();
        let pass = result_file(dir.path(), Status::Pass);
        let script = fake_worker(
            dir.path(),
            &format!(
                "n=$(wc -l < '{d}/jobs'); printf 'job %s says hi' \"$n\"; cp '{p}' \"$out\"; printf '%s\\n' \"$sentinel\"",
                d = dir.path().display(),
                p = pass.display()
            ),
        );
        let mut workers = Workers::new(&script, &env());
        for k in 1..=3 {
            let m = workers.run(0, &"job", Duration::from_secs(30)).unwrap();
            assert_eq!(m.record.status, Status::Pass);
            assert_eq!(
                m.record.log,
                format!("device printf output:\njob {k} says hi")
            );
        }
        assert_eq!(workers.started(), 1);
        assert_eq!(count(dir.path(), "starts"), 1);
        assert_eq!(count(dir.path(), "jobs"), 3);
    }

    // Workers of different processes are different processes.
    #[test]
    fn each_process_index_has_its_own_worker() {
        let dir = tempfile::tempdir().unwrap();
        let pass = result_file(dir.path(), Status::Pass);
        let script = fake_worker(
            dir.path(),
            &format!(
                "cp '{}' \"$out\"; printf '%s\\n' \"$sentinel\"",
                pass.display()
            ),
        );
        let mut workers = Workers::new(&script, &env());
        for process in [0, 1, 2, 0, 1, 2] {
            workers
                .run(process, &"job", Duration::from_secs(30))
                .unwrap();
        }
        assert_eq!(count(dir.path(), "starts"), 3);
        assert_eq!(count(dir.path(), "jobs"), 6);
    }

    // A job whose record is a fault leaves no worker: the next job gets a
    // fresh process (a faulted context cannot be trusted).
    #[test]
    fn a_worker_is_started_afresh_after_a_fault() {
        let dir = tempfile::tempdir().unwrap();
        let fault = result_file(dir.path(), Status::Fault);
        let script = fake_worker(
            dir.path(),
            &format!(
                "cp '{}' \"$out\"; printf '%s\\n' \"$sentinel\"",
                fault.display()
            ),
        );
        let mut workers = Workers::new(&script, &env());
        for _ in 0..2 {
            let m = workers.run(0, &"job", Duration::from_secs(30)).unwrap();
            assert_eq!(m.record.status, Status::Fault);
        }
        assert_eq!(count(dir.path(), "starts"), 2);
    }

    // A job past its limit is a time-out naming the limit, with what it
    // printed; the worker is killed and the next job starts a fresh one.
    #[test]
    fn a_job_past_its_limit_times_out_and_the_next_gets_a_fresh_worker() {
        let dir = tempfile::tempdir().unwrap();
        let pass = result_file(dir.path(), Status::Pass);
        let script = fake_worker(
            dir.path(),
            &format!(
                "if [ \"$(wc -l < '{d}/jobs')\" = 1 ]; then printf 'spinning'; exec sleep 30; fi; cp '{p}' \"$out\"; printf '%s\\n' \"$sentinel\"",
                d = dir.path().display(),
                p = pass.display()
            ),
        );
        let mut workers = Workers::new(&script, &env());
        let failure = workers
            .run(0, &"job", Duration::from_millis(700))
            .unwrap_err();
        assert_eq!(failure.status(), Status::Timeout);
        assert!(
            failure.to_string().starts_with("did not finish within 0 s"),
            "{}",
            failure
        );
        assert!(failure.log().contains("spinning"), "{}", failure.log());
        let m = workers.run(0, &"job", Duration::from_secs(30)).unwrap();
        assert_eq!(m.record.status, Status::Pass);
        assert_eq!(count(dir.path(), "starts"), 2);
    }

    // A worker that dies in a job is a fault with its exit status and its
    // stderr, not a hang.
    #[test]
    fn a_worker_that_dies_is_a_fault_with_its_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let script = fake_worker(dir.path(), "echo 'driver says no' >&2; exit 3");
        let mut workers = Workers::new(&script, &env());
        let failure = workers.run(0, &"job", Duration::from_secs(30)).unwrap_err();
        assert_eq!(failure.status(), Status::Fault);
        assert!(
            failure.to_string().contains("exit status: 3"),
            "{}",
            failure
        );
        assert!(
            failure.log().contains("driver says no"),
            "{}",
            failure.log()
        );
    }

    // A printf flood is cut at the cap, counted, and the job still ends at
    // its sentinel (read through every chunk boundary).
    #[test]
    fn a_printf_flood_is_capped_and_the_job_still_ends() {
        let dir = tempfile::tempdir().unwrap();
        let pass = result_file(dir.path(), Status::Pass);
        let script = fake_worker(
            dir.path(),
            &format!(
                "head -c 5000000 /dev/zero | tr '\\0' 'x'; cp '{}' \"$out\"; printf '%s\\n' \"$sentinel\"",
                pass.display()
            ),
        );
        let mut workers = Workers::new(&script, &env());
        let m = workers.run(0, &"job", Duration::from_secs(60)).unwrap();
        assert!(
            m.record
                .log
                .starts_with("device printf output (first 16 KiB of 5000000 bytes shown):"),
            "{}",
            &m.record.log[..80]
        );
        assert!(m.record.log.ends_with("[... 4983616 more bytes not kept]"));
    }

    // The output reader finds a sentinel cut across reads, byte by byte.
    #[test]
    fn a_sentinel_cut_across_reads_still_ends_the_job() {
        struct Trickle(Vec<u8>, usize);
        impl Read for Trickle {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.1 >= self.0.len() {
                    return Ok(0);
                }
                buf[0] = self.0[self.1];
                self.1 += 1;
                Ok(1)
            }
        }
        let marker = sentinel("abc");
        let stream = format!("one{marker}two{marker}three").into_bytes();
        let (sender, receiver) = mpsc::channel();
        read_jobs_output(Trickle(stream, 0), marker.as_bytes(), &sender);
        drop(sender);
        let texts: Vec<(bool, Vec<u8>)> = receiver
            .iter()
            .map(|e| match e {
                Event::Done(c) => (true, c.bytes().to_vec()),
                Event::Closed(c) => (false, c.bytes().to_vec()),
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                (true, b"one".to_vec()),
                (true, b"two".to_vec()),
                (false, b"three".to_vec())
            ]
        );
    }
}
