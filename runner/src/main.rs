//! `cuda-runner`: run, check or inspect CUDA examples from the command line.
//! `measure` is the child-process entry the book build and `run` use.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use cuda_runner::example::Example;
use cuda_runner::record::Record;
use cuda_runner::{compile, device, execute, isolate, key, report};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "cuda-runner",
    version,
    about = "Compile, run, check and time CUDA examples"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure examples (kernel files or folders of them), each in its own
    /// process with a time limit, and print a table (or JSON).
    Run {
        /// `.cu` files with an example header, or folders holding them.
        paths: Vec<PathBuf>,
        /// Print the records as a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// Time limit per example, seconds (a header's `timeout_s` wins).
        #[arg(long, default_value_t = 120)]
        timeout_s: u64,
    },
    /// Compile examples with NVRTC only (no GPU needed).
    Check {
        /// `.cu` files or folders.
        paths: Vec<PathBuf>,
        /// Target architecture.
        #[arg(long, default_value = "sm_90")]
        arch: String,
    },
    /// Start a new example: write kernels/CHAPTER/NAME.cu with a header
    /// for the problem and a minimal correct kernel (never overwriting),
    /// then print the block to paste into the chapter and the next steps.
    New {
        /// `CHAPTER/NAME`: the chapter's folder under kernels/ and the
        /// example's name (`reductions/my_sum`).
        target: String,
        /// The problem the kernel solves.
        #[arg(long)]
        problem: String,
        /// The book's kernels folder.
        #[arg(long, default_value = "kernels")]
        kernels: PathBuf,
    },
    /// Print the GPU's facts.
    Device {
        /// As JSON.
        #[arg(long)]
        json: bool,
        /// Print only how many GPUs this process sees (a session measures
        /// on each of them side by side).
        #[arg(long, conflicts_with = "json")]
        count: bool,
    },
    /// Compare two measuring runs of the same book (folders of records) and
    /// print the repeatability report as JSON.
    Repeatability {
        /// Records of the first run.
        first: PathBuf,
        /// Records of the second run.
        second: PathBuf,
    },
    /// Combine the book's record of its kernel with the peers' JSON lines
    /// (bench/peers/run.sh) into the stored comparison, printed as JSON.
    Peers {
        /// The problem compared.
        #[arg(long, default_value = "sum_f32")]
        problem: String,
        /// The book kernel's record (e.g. results/reductions/fast_reduce.json);
        /// repeated, the fastest correct one at each size is compared.
        #[arg(long, required = true)]
        ours: Vec<PathBuf>,
        /// The peers' JSON lines.
        #[arg(long)]
        peers: PathBuf,
        /// The peers' names and colours, by problem.
        #[arg(long, default_value = "bench/peers/peers.toml")]
        config: PathBuf,
        /// The peers were timed in the same measuring session as the book's
        /// records (the GPU session says so); pages then say "in one session".
        #[arg(long)]
        same_session: bool,
    },
    /// Compile-only entry of the book build and `mdbook-cuda check`:
    /// compile the examples of the job in FILE and print, as one JSON
    /// object, this runner's version, the NVRTC it loaded and one verdict
    /// per example.
    #[command(hide = true)]
    Compile {
        /// The job file written by the plugin.
        #[arg(long)]
        job: PathBuf,
        /// Target architecture.
        #[arg(long, default_value = "sm_90")]
        arch: String,
    },
    /// Child-process entry: measure the job in FILE and write its record and
    /// raw samples as JSON to OUT (stdout is left to the kernel's printf).
    #[command(hide = true)]
    Measure {
        /// The job file written by the parent.
        #[arg(long)]
        job: PathBuf,
        /// Where the result goes.
        #[arg(long)]
        out: PathBuf,
    },
    /// Profile one example with Nsight Compute at one size (its launches
    /// run once, clocks not locked) and write its counters to
    /// results/profile/<id>.json, where `{{#profile}}` reads them.
    Profile {
        /// The example's `.cu` file.
        path: PathBuf,
        /// The size to profile (`2^24`; the row length for a row-wise
        /// problem).
        #[arg(long)]
        size: String,
        /// Where the profile goes (default: the book's
        /// results/profile/<id>.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The Nsight Compute executable.
        #[arg(long, default_value = "ncu")]
        ncu: PathBuf,
    },
    /// Write what the compiler made of examples (kernel files or folders
    /// of them): each kernel's registers, stack, shared and local memory
    /// and its SASS with source lines, into results/sass/<id>.json, where
    /// `{{#sass}}` reads them. Needs NVRTC, cuobjdump and nvdisasm (all
    /// from PyPI: scripts/sass), no GPU.
    Sass {
        /// Kernel files or folders of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The architecture to compile for (the book's target GPU's).
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// The folder holding cuobjdump and nvdisasm (default: PATH).
        #[arg(long)]
        tools: Option<PathBuf>,
    },
    /// Run one example under NVIDIA's compute-sanitizer at one size (its
    /// launches once) and write what the check found to
    /// results/sanitizer/<id>/<check>-<n>.json, where `{{#sanitizer}}`
    /// reads it.
    Sanitize {
        /// The example's `.cu` file.
        path: PathBuf,
        /// The size to run (`2^22`).
        #[arg(long)]
        size: String,
        /// The check: racecheck, memcheck, synccheck or initcheck.
        #[arg(long, default_value = "racecheck")]
        check: String,
        /// The compute-sanitizer executable.
        #[arg(long, default_value = "compute-sanitizer")]
        sanitizer: PathBuf,
    },
    /// Print an example's launches at one size as JSON lines (kernel, grid,
    /// block, dynamic shared bytes), resolved for the book's target GPU (or
    /// the SM count given): what a host program needs to launch it.
    Plan {
        /// The example's `.cu` file.
        path: PathBuf,
        /// The size (`2^22`).
        #[arg(long)]
        size: String,
        /// The SM count to resolve `sms` with (default: the target GPU's).
        #[arg(long)]
        sms: Option<u32>,
    },
    /// All-reduce (f32 sum) across this machine's GPUs, one process driving
    /// every rank: NCCL (out of place and in place) and the book's one-shot
    /// and two-shot kernels (kernels/allreduce/), each checked against the
    /// float64 sum of every rank's input, then timed per message size;
    /// writes a JSON report. NVLink multicast stays off
    /// (NCCL_NVLS_ENABLE=0 is set before NCCL starts).
    Allreduce(AllreduceArgs),
    /// The entry `profile` runs under Nsight Compute: the example's
    /// launches once at one size.
    #[command(hide = true)]
    LaunchOnce {
        /// The example's `.cu` file.
        path: PathBuf,
        /// The size.
        #[arg(long)]
        size: String,
    },
}

/// The switches of `cuda-runner allreduce`.
#[derive(clap::Args)]
struct AllreduceArgs {
    /// Ranks: the first K visible GPUs (default: every visible GPU).
    #[arg(long)]
    gpus: Option<usize>,
    /// Message sizes in bytes: byte counts (1000, 64KiB, 2^20) and
    /// ranges of powers of two (8..256MiB), comma-separated (default:
    /// 8..4GiB). Sizes that do not fit in a GPU's memory are skipped.
    #[arg(long)]
    sizes: Option<String>,
    /// Implementations: nccl, nccl-inplace, one-shot, two-shot, or all.
    #[arg(long, default_value = "all")]
    impls: String,
    /// The seed every rank's input is drawn from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sampling time-out per implementation and size, seconds.
    #[arg(long, default_value_t = cuda_runner::method::POLICY.timeout_s)]
    timeout_s: f64,
    /// GPU time before sampling may stop, seconds.
    #[arg(long, default_value_t = cuda_runner::method::POLICY.min_gpu_s)]
    min_gpu_s: f64,
    /// Where the report goes (default:
    /// results/allreduce/<model>-<k>gpu.json, run in the book's root).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Errors meant for an author end the run as `error:` lines, the causes
/// below, and a non-zero exit: never a backtrace, whatever
/// `RUST_BACKTRACE` says (a panic is a bug and may still show one).
fn main() -> std::process::ExitCode {
    match execute(Cli::parse().command) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprint!("{}", error_lines(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// `cuda-runner: error: WHAT` and a `  caused by: WHY` line per cause.
fn error_lines(e: &anyhow::Error) -> String {
    let mut out = format!("cuda-runner: error: {e}\n");
    for cause in e.chain().skip(1) {
        out.push_str(&format!("  caused by: {cause}\n"));
    }
    out
}

fn execute(command: Command) -> Result<()> {
    match command {
        Command::Run {
            paths,
            json,
            timeout_s,
        } => run(&paths, json, Duration::from_secs(timeout_s)),
        Command::Check { paths, arch } => check(&paths, &arch),
        Command::New {
            target,
            problem,
            kernels,
        } => new_example(&target, &problem, &kernels),
        Command::Device { json, count } => {
            if count {
                device_count()
            } else {
                device_facts(json)
            }
        }
        Command::Measure { job, out } => measure(&job, &out),
        Command::Profile {
            path,
            size,
            out,
            ncu,
        } => profile(&path, &size, out.as_deref(), &ncu),
        Command::LaunchOnce { path, size } => {
            let example = one_example(&path)?;
            let size = parse_size(&example, &size)?;
            let gpu = execute::launch_once(&example, size)?;
            // Read back by `profile` from Nsight Compute's output.
            println!("{GPU_LINE}{gpu}");
            Ok(())
        }
        Command::Compile { job, arch } => compile_job(&job, &arch),
        Command::Allreduce(args) => allreduce(args),
        Command::Plan { path, size, sms } => plan(&path, &size, sms),
        Command::Sanitize {
            path,
            size,
            check,
            sanitizer,
        } => sanitize(&path, &size, &check, &sanitizer),
        Command::Sass { paths, arch, tools } => sass(&paths, &arch, tools.as_deref()),
        Command::Peers {
            problem,
            ours,
            peers,
            config,
            same_session,
        } => {
            let records = ours
                .iter()
                .map(|path| {
                    let text = std::fs::read_to_string(path)
                        .with_context(|| format!("reading {}", path.display()))?;
                    serde_json::from_str::<Record>(&text)
                        .with_context(|| format!("{} is not a record", path.display()))
                })
                .collect::<anyhow::Result<Vec<Record>>>()?;
            let lines = std::fs::read_to_string(&peers)?;
            let configs = cuda_runner::peers::load_config(
                &std::fs::read_to_string(&config)
                    .with_context(|| format!("reading {}", config.display()))?,
            )
            .with_context(|| format!("{} is not a peers list", config.display()))?;
            let entry = configs
                .get(&problem)
                .with_context(|| format!("{} lists no peers for `{problem}`", config.display()))?;
            let mut report = cuda_runner::peers::combine(&problem, &records, &lines, entry)?;
            report.one_session = same_session.then_some(true);
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(())
        }
        Command::Repeatability { first, second } => {
            let report = cuda_runner::repeatability::compare(&first, &second)?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(())
        }
    }
}

fn run(paths: &[PathBuf], json: bool, limit: Duration) -> Result<()> {
    use cuda_runner::session::{self, Event, IsolatedBench, Job};
    let examples = load_examples(paths)?;
    let keys: Vec<String> = examples.iter().map(key::example_key).collect();
    let jobs: Vec<Job<'_>> = examples
        .iter()
        .zip(&keys)
        .map(|(example, key)| Job {
            example,
            key,
            limit: isolate::limit_for(example, limit),
        })
        .collect();
    let exe = std::env::current_exe().context("locating cuda-runner itself")?;
    let mut bench = IsolatedBench::new(exe);
    let mut on_event = |event: Event<'_>| match event {
        Event::Started { .. } => {}
        Event::Measuring {
            index,
            count,
            example,
            elapsed,
            lane,
        } => eprintln!(
            "[cuda-runner] {}/{count} {}{} (elapsed {})",
            index + 1,
            example.id,
            lane.map(|l| format!(" on GPU lane {l}"))
                .unwrap_or_default(),
            report::elapsed(elapsed)
        ),
        Event::Measured {
            example, record, ..
        } => {
            eprintln!(
                "[cuda-runner]   -> {} {}",
                example.id,
                report::outcome_line(record)
            );
        }
        Event::LaneLost {
            lane,
            example,
            record,
            elapsed,
        } => eprintln!(
            "[cuda-runner] {}",
            report::lane_lost_line(lane, &example.id, record, elapsed)
        ),
    };
    let done = session::run(&jobs, &mut bench, None, &mut on_event).map_err(|no_gpu| {
        anyhow::anyhow!("{no_gpu}: `cuda-runner run` measures on a GPU; `cuda-runner check` compiles without one")
    })?;
    let records: Vec<Record> = done.into_iter().map(|d| d.record).collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&records)?);
    } else {
        print!("{}", report::table(&records));
    }
    Ok(())
}

fn check(paths: &[PathBuf], arch: &str) -> Result<()> {
    use cuda_runner::compile_judge::judge;
    use cuda_runner::plan_check;
    let (examples, unreadable) = read_examples(paths)?;
    // Every file whose header does not parse is listed, then the others
    // are checked; the exit is non-zero once, at the end.
    let mut failed = unreadable.len();
    for error in &unreadable {
        println!("FAILED {error}");
    }
    // The book's directives, as `mdbook-cuda check` reads them.
    let directives = book_directive_mistakes(paths);
    failed += directives.len();
    for line in &directives {
        println!("FAILED {line}");
    }
    for example in &examples {
        // The same judgement as `mdbook-cuda check`: the plan at every size
        // on the H200, then NVRTC's verdict held to the declaration.
        let (ok, summary, log) = match plan_check::check_as_declared(example) {
            Err(message) => (false, message, String::new()),
            Ok(()) => {
                let verdict = verdict_of(example, arch);
                let judgement = judge(example, &verdict);
                let log = match &verdict {
                    cuda_runner::compile_job::CompileVerdict::Refused { log, .. }
                        if !judgement.ok() =>
                    {
                        log.clone()
                    }
                    _ => String::new(),
                };
                (judgement.ok(), judgement.summary(), log)
            }
        };
        if ok {
            println!("ok     {:<40} {summary}", example.id);
        } else {
            failed += 1;
            println!("FAILED {:<40} {summary}", example.id);
            if !log.is_empty() {
                println!("{log}");
            }
        }
    }
    if failed > directives.len() {
        bail!(
            "{} of {} examples failed the check{}",
            failed - directives.len(),
            examples.len() + unreadable.len(),
            if directives.is_empty() {
                String::new()
            } else {
                format!(", and {} directive(s) of the book", directives.len())
            }
        );
    }
    if !directives.is_empty() {
        bail!(
            "{} directive(s) of the book cannot be read or name what the book does not have",
            directives.len()
        );
    }
    Ok(())
}

/// The mistakes of the directives of the book the checked files belong to
/// (the folder above their `kernels/`, when it holds a book.toml): those
/// that cannot be read, or name an example the book does not have, a
/// broken one or a size the example does not declare; without a GPU or
/// the results store.
fn book_directive_mistakes(paths: &[PathBuf]) -> Vec<String> {
    let mut roots: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .map(|abs| book_of(&abs).0)
        .filter(|root| root.join("book.toml").is_file())
        .collect();
    roots.sort();
    roots.dedup();
    let mut out = Vec::new();
    for root in roots {
        let book = mdbook_cuda::book_files::load(&root).and_then(|disk| {
            let settings = mdbook_cuda::config::Settings::load(&disk.root, &disk.config, |k| {
                std::env::var(k).ok()
            })?;
            let catalog = mdbook_cuda::catalog::Catalog::build(&settings, &disk.chapters);
            Ok(mdbook_cuda::names::check(
                &settings,
                &catalog,
                &disk.chapters,
            ))
        });
        match book {
            Ok(lines) => out.extend(lines),
            Err(e) => out.push(format!(
                "{}: the book's directives cannot be checked: {e:#}",
                root.display()
            )),
        }
    }
    out
}

/// NVRTC's verdict on one example, as the compile job reports it.
fn verdict_of(example: &Example, arch: &str) -> cuda_runner::compile_job::CompileVerdict {
    use cuda_runner::compile_job::CompileVerdict;
    match compile::compile(example, arch) {
        Ok(c) => CompileVerdict::Compiled {
            log: c.log,
            cubin_bytes: c.cubin.len(),
            entries: c.entries,
        },
        Err(compile::CompileError::Source { first_error, log }) => {
            CompileVerdict::Refused { first_error, log }
        }
        Err(e @ compile::CompileError::NoNvrtc) => CompileVerdict::NoNvrtc {
            message: e.to_string(),
        },
        Err(e) => CompileVerdict::Failed {
            message: e.to_string(),
        },
    }
}

fn compile_job(job: &Path, arch: &str) -> Result<()> {
    use cuda_runner::compile_job::{CompileAnswer, CompileJob, CompileVerdict, Nvrtc};
    let text =
        std::fs::read_to_string(job).with_context(|| format!("reading {}", job.display()))?;
    let job: CompileJob = serde_json::from_str(&text).context("parsing the compile job")?;
    let nvrtc = compile::nvrtc_version().map(|version| Nvrtc {
        version,
        library: loaded_library("libnvrtc"),
    });
    let nvrtc_missing = nvrtc
        .is_none()
        .then(|| compile::CompileError::NoNvrtc.to_string());
    let verdicts: Vec<CompileVerdict> = job
        .examples
        .iter()
        .map(|example| verdict_of(example, arch))
        .collect();
    let answer = CompileAnswer {
        runner: env!("CARGO_PKG_VERSION").to_string(),
        nvrtc,
        nvrtc_missing,
        verdicts,
    };
    println!("{}", serde_json::to_string(&answer)?);
    Ok(())
}

/// The file of the shared library whose name starts with `prefix` that
/// this process has loaded, from /proc/self/maps (Linux; elsewhere `None`).
/// The book's compile cache notices a library replaced in place by it.
fn loaded_library(prefix: &str) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            Path::new(path).file_name().is_some_and(|name| {
                // `libnvrtc.so.13`, not `libnvrtc-builtins.so.13`.
                let name = name.to_string_lossy();
                name.strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with(".so"))
            })
        })
        .map(str::to_string)
}

fn new_example(target: &str, problem: &str, kernels: &Path) -> Result<()> {
    use cuda_measured_core::template;
    if !kernels.is_dir() {
        bail!(
            "no folder {}: run this in the book's root (beside book.toml), or pass --kernels",
            kernels.display()
        );
    }
    let example = template::new_example(target, problem)?;
    let path = template::write(kernels, &example)?;
    println!(
        "wrote {} (problem {}, kernel {})\n",
        path.display(),
        example.problem,
        example.kernel
    );
    print!("{}", template::next_steps(&example));
    Ok(())
}

fn allreduce(args: AllreduceArgs) -> Result<()> {
    use cuda_measured_core::allreduce::{implementations, report, sizes as sweep};
    use cuda_runner::allreduce::{self, nccl_library};
    // First, while this process has one thread: NCCL reads it when it starts.
    for note in allreduce::multicast_off() {
        eprintln!("[allreduce] {note}");
    }
    let implementations = implementations::parse_list(&args.impls).map_err(anyhow::Error::msg)?;
    let sizes = match args.sizes.as_deref() {
        Some(text) => sweep::parse_list(text).with_context(|| format!("--sizes {text}"))?,
        None => sweep::default_sweep(),
    };
    if args.out.is_none() && !Path::new("book.toml").is_file() {
        bail!(
            "no book.toml here: run `cuda-runner allreduce` in the book's root, or pass --out FILE"
        );
    }
    if implementations.iter().any(|i| i.uses_nccl()) {
        nccl_library::ensure_loadable()?;
    }
    if !device::driver_present() {
        bail!("no CUDA driver (libcuda.so) on this machine");
    }
    let report = allreduce::run(&allreduce::Options {
        gpus: args.gpus,
        sizes,
        implementations,
        seed: args.seed,
        timeout_s: args.timeout_s,
        min_gpu_s: args.min_gpu_s,
    })?;
    let out = args.out.unwrap_or_else(|| {
        Path::new("results").join(report::relative_path(&report.gpus[0].name, report.ranks))
    });
    write_json(&out, &report)?;
    println!("report -> {}", out.display());
    if let Some(why) = &report.aborted {
        bail!("{why}");
    }
    Ok(())
}

fn device_count() -> Result<()> {
    if !device::driver_present() {
        bail!("no CUDA driver (libcuda.so) on this machine");
    }
    println!("{}", device::count().context("counting the GPUs")?);
    Ok(())
}

fn device_facts(json: bool) -> Result<()> {
    if !device::driver_present() {
        bail!("no CUDA driver (libcuda.so) on this machine");
    }
    let (_ctx, facts) = device::open().context("opening GPU 0")?;
    if json {
        println!("{}", serde_json::to_string(&facts)?);
    } else {
        println!("{facts:#?}");
    }
    Ok(())
}

fn measure(job: &Path, out: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(job).with_context(|| format!("reading {}", job.display()))?;
    let job: isolate::OwnedJob = serde_json::from_str(&text).context("parsing the job")?;
    let measured = execute::run_example(&job.example, &job.key, job.process, job.processes);
    std::fs::write(out, serde_json::to_vec(&measured)?)
        .with_context(|| format!("writing {}", out.display()))
}

/// How `launch-once` names the GPU it ran on, on a line of its own.
use cuda_runner::execute::GPU_LINE;

/// `--size` read as a size of `example`'s problem (`2^20`, `8192x8192`,
/// `M=N=K=4096`).
fn parse_size(example: &Example, text: &str) -> Result<cuda_runner::dims::Dims> {
    example
        .declaration
        .read_size(text)
        .map_err(|e| anyhow::anyhow!("--size {text}: {e}"))
}

/// The one example of the `.cu` file at `path`.
fn one_example(path: &Path) -> Result<Example> {
    let mut examples = load_examples(&[path.to_path_buf()])?;
    if examples.len() != 1 {
        bail!(
            "{} holds {} examples, not one",
            path.display(),
            examples.len()
        );
    }
    Ok(examples.remove(0))
}

/// Runs the example's launches once under Nsight Compute and stores the
/// counters of [`cuda_runner::profile::METRICS`].
fn profile(path: &Path, size: &str, out: Option<&Path>, ncu: &Path) -> Result<()> {
    use cuda_runner::profile::{self, Profile};
    let example = one_example(path)?;
    let size_read = parse_size(&example, size)?;
    let key = key::example_key(&example);
    let version = std::process::Command::new(ncu)
        .arg("--version")
        .output()
        .with_context(|| {
            format!(
                "running {} --version: is Nsight Compute installed?",
                ncu.display()
            )
        })?;
    let tool = profile::tool_version("ncu", &String::from_utf8_lossy(&version.stdout));
    let metrics: Vec<&str> = profile::METRICS.iter().map(|(_, full)| *full).collect();
    let run = std::process::Command::new(ncu)
        .args(["--clock-control", "none", "--csv", "--metrics"])
        .arg(metrics.join(","))
        .arg(std::env::current_exe()?)
        .arg("launch-once")
        .arg(path)
        .args(["--size", size])
        .output()
        .with_context(|| format!("running {}", ncu.display()))?;
    let stdout = String::from_utf8_lossy(&run.stdout);
    if !run.status.success() {
        bail!(
            "{} failed ({}): {}{}",
            ncu.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr),
            stdout
        );
    }
    let gpu = stdout
        .lines()
        .find_map(|l| l.strip_prefix(GPU_LINE))
        .context("the profiled run did not say which GPU it ran on")?
        .trim()
        .to_string();
    let kernels = profile::parse_ncu_csv(&stdout)?;
    if kernels.is_empty() {
        bail!(
            "Nsight Compute profiled no kernel of {}: {stdout}",
            example.id
        );
    }
    let record = Profile {
        schema: profile::SCHEMA_VERSION,
        example: example.id.clone(),
        key,
        n: cuda_runner::size::Size(size_read.n_value()),
        dims: (!size_read.is_flat()).then_some(size_read),
        gpu,
        tool,
        measured_at: cuda_runner::record::now_rfc3339(),
        kernels,
    };
    let out = match out {
        Some(p) => p.to_path_buf(),
        None => results_file(
            path,
            &profile::relative_path(&example.id, size_read, &record.gpu),
        )?,
    };
    write_json(&out, &record)?;
    println!(
        "profiled {} at {size_read}: {} kernel(s) -> {}",
        example.id,
        record.kernels.len(),
        out.display()
    );
    Ok(())
}

fn plan(path: &Path, size: &str, sms: Option<u32>) -> Result<()> {
    use cuda_runner::launch_plan;
    let example = one_example(path)?;
    let n = parse_size(&example, size)?;
    let decl = &example.declaration;
    let sms = sms.unwrap_or(cuda_runner::limits::KnownGpu::target().sm_count);
    let shape = launch_plan::shape(decl, n).map_err(|e| anyhow::anyhow!(e.at(&example)))?;
    let plan = launch_plan::resolve_shape(decl, shape, sms)
        .map_err(|e| anyhow::anyhow!(e.at(&example)))?;
    for l in &plan.launches {
        println!(
            "{}",
            serde_json::json!({
                "example": example.id,
                "key": cuda_runner::key::example_key(&example),
                "kernel": l.kernel,
                "grid": l.grid,
                "block": l.block,
                "shared": l.shared,
                "args": l.args,
            })
        );
    }
    Ok(())
}

fn sanitize(path: &Path, size: &str, check: &str, tool: &Path) -> Result<()> {
    let example = one_example(path)?;
    let n = parse_size(&example, size)?;
    let report = cuda_runner::sanitize::run(&example, path, n, check, tool)?;
    let out = results_file(
        path,
        &cuda_runner::sanitizer::relative_path(&example.id, check, n),
    )?;
    write_json(&out, &report)?;
    println!(
        "{} of {} at {n}: {} error(s), {} warning(s) -> {}",
        check,
        example.id,
        report.errors,
        report.warnings,
        out.display()
    );
    Ok(())
}

fn sass(paths: &[PathBuf], arch: &str, tools: Option<&Path>) -> Result<()> {
    let examples = load_examples(paths)?;
    let mut failed = 0;
    for example in &examples {
        if example.declaration.expect == cuda_runner::declaration::Expectation::CompileError {
            println!("{}: meant not to compile, no listing", example.id);
            continue;
        }
        let made = cuda_runner::listing::make(example, arch, tools).and_then(|listing| {
            let out = results_file(
                Path::new(&example.origin.file),
                &cuda_runner::sass::relative_path(&example.id),
            )?;
            write_json(&out, &listing)?;
            Ok((listing, out))
        });
        match made {
            Ok((listing, out)) => println!(
                "{}: {} kernel(s), {} instructions -> {}",
                example.id,
                listing.kernels.len(),
                listing
                    .kernels
                    .iter()
                    .map(|k| k.instructions.len())
                    .sum::<usize>(),
                out.display()
            ),
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e:#}", example.id);
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} example(s) have no listing", examples.len());
    }
    Ok(())
}

/// The file `relative` under the results folder of the book that holds the
/// kernel file `kernel`.
fn results_file(kernel: &Path, relative: &str) -> Result<PathBuf> {
    Ok(book_of(&kernel.canonicalize()?)
        .0
        .join("results")
        .join(relative))
}

/// Writes `value` to `out` as the store writes its files.
fn write_json(out: &Path, value: &impl serde::Serialize) -> Result<()> {
    cuda_runner::atomic_file::write_json_atomically(out, value)
        .with_context(|| format!("writing {}", out.display()))
}

/// The book root and kernels folder of the absolute path `abs`: the
/// nearest `kernels/` above it and that folder's parent (the file's own
/// folder when there is no `kernels/`).
fn book_of(abs: &Path) -> (PathBuf, PathBuf) {
    let kernels = abs
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "kernels"))
        .map(Path::to_path_buf)
        .unwrap_or_else(|| abs.parent().expect("a file has a parent").to_path_buf());
    let root = kernels.parent().unwrap_or(&kernels).to_path_buf();
    (root, kernels)
}

/// Resolves `.cu` files (and folders of them) into examples, failing with
/// every file that does not resolve.
fn load_examples(paths: &[PathBuf]) -> Result<Vec<Example>> {
    let (examples, unreadable) = read_examples(paths)?;
    if !unreadable.is_empty() {
        let lines: Vec<String> = unreadable.iter().map(ToString::to_string).collect();
        bail!(
            "{} example(s) do not resolve:\n{}",
            lines.len(),
            lines.join("\n")
        );
    }
    Ok(examples)
}

/// Resolves `.cu` files (and folders of them) into examples, and says for
/// each file that does not resolve where and why. The book root is the
/// folder above the nearest `kernels/` ancestor.
fn read_examples(
    paths: &[PathBuf],
) -> Result<(Vec<Example>, Vec<cuda_runner::example::ExampleError>)> {
    let mut files = Vec::new();
    for p in paths {
        collect_cu(p, &mut files)?;
    }
    if files.is_empty() {
        bail!("no .cu files under {:?}", paths);
    }
    files.sort();
    let mut examples = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        let abs = file
            .canonicalize()
            .with_context(|| format!("{}", file.display()))?;
        let (root, kernels) = book_of(&abs);
        let rel = abs
            .strip_prefix(&kernels)
            .expect("under kernels")
            .to_string_lossy()
            .to_string();
        match Example::from_file(&root, &kernels, &rel, None, None) {
            Ok(example) => examples.push(example),
            Err(e) => unreadable.push(e),
        }
    }
    Ok((examples, unreadable))
}

fn collect_cu(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).with_context(|| format!("{}", path.display()))? {
            collect_cu(&entry?.path(), out)?;
        }
    } else if path.extension().is_some_and(|e| e == "cu") {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
        if text.contains(cuda_runner::source::HEADER_OPEN) {
            out.push(path.to_path_buf());
        }
    } else if !path.exists() {
        bail!("{}: no such file or folder", path.display());
    }
    Ok(())
}
