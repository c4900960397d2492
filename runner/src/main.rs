//! `cuda-runner`: run, check or inspect CUDA examples from the command line.
//! `measure` is the child-process entry the book build and `run` use. Each
//! subcommand is a file of [`cmd`]; this file holds the command line's
//! shape, the dispatch and how errors are printed.

use clap::{Parser, Subcommand};

mod cmd;
mod serve;

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
    Run(cmd::run::Args),
    /// Compile examples with NVRTC only (no GPU needed).
    Check(cmd::check::Args),
    /// Start a new example: write kernels/CHAPTER/NAME.cu with a header
    /// for the problem and a minimal correct kernel (never overwriting),
    /// then print the block to paste into the chapter and the next steps.
    New(cmd::new::Args),
    /// Print the GPU's facts.
    Device(cmd::device::Args),
    /// Compare two measuring runs of the same book (folders of records) and
    /// print the repeatability report as JSON.
    Repeatability(cmd::repeatability::Args),
    /// Combine the book's record of its kernel with the peers' JSON lines
    /// (bench/peers/run.sh) into the stored comparison, printed as JSON.
    Peers(cmd::peers::Args),
    /// Compile-only entry of the book build and `mdbook-cuda check`:
    /// compile the examples of the job in FILE and print, as one JSON
    /// object, this runner's version, the NVRTC it loaded and one verdict
    /// per example.
    #[command(hide = true)]
    Compile(cmd::compile::Args),
    /// Child-process entry: measure the job in FILE and write its record and
    /// raw samples as JSON to OUT (stdout is left to the kernel's printf).
    #[command(hide = true)]
    Measure(cmd::measure::Args),
    /// Warm measuring process: open the GPU once, then measure the jobs
    /// read from stdin one after another, each ended on stdout by the
    /// sentinel line (stdout is otherwise the kernels' printf).
    #[command(hide = true)]
    Worker(cmd::worker::Args),
    /// Profile one example with Nsight Compute at one size (its launches
    /// run once, clocks not locked) and write its counters to
    /// results/profile/<id>.json, where `{{#profile}}` reads them.
    Profile(cmd::profile::Args),
    /// Write what the compiler made of examples (kernel files or folders
    /// of them): each kernel's registers, stack, shared and local memory
    /// and its SASS with source lines, into results/sass/<id>.json, where
    /// `{{#sass}}` reads them. Needs NVRTC, cuobjdump and nvdisasm (all
    /// from PyPI: scripts/sass), no GPU.
    Sass(cmd::sass::Args),
    /// Run one example under NVIDIA's compute-sanitizer at one size (its
    /// launches once) and write what the check found to
    /// results/sanitizer/<id>/<check>-<n>.json, where `{{#sanitizer}}`
    /// reads it.
    Sanitize(cmd::sanitize::Args),
    /// Print an example's launches at one size as JSON lines (kernel, grid,
    /// block, dynamic shared bytes), resolved for the book's target GPU (or
    /// the SM count given): what a host program needs to launch it.
    Plan(cmd::plan::Args),
    /// All-reduce (f32 sum) across this machine's GPUs, one process driving
    /// every rank: NCCL (out of place and in place) and the book's one-shot
    /// and two-shot kernels (kernels/allreduce/), each checked against the
    /// float64 sum of every rank's input, then timed per message size;
    /// writes a JSON report. NVLink multicast stays off
    /// (NCCL_NVLS_ENABLE=0 is set before NCCL starts).
    Allreduce(cmd::allreduce::Args),
    /// The entry `profile` runs under Nsight Compute: the example's
    /// launches once at one size.
    #[command(hide = true)]
    LaunchOnce(cmd::launch_once::Args),
    /// The Run service: answer a book page's Run button over HTTP (POST
    /// /run, GET /health), compiling the reader's kernel in the book's
    /// example and, on a GPU, measuring it quickly (`--compile-only`
    /// without one).
    Serve(serve::Args),
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

fn execute(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => cmd::run::execute(args),
        Command::Check(args) => cmd::check::execute(args),
        Command::New(args) => cmd::new::execute(args),
        Command::Device(args) => cmd::device::execute(args),
        Command::Repeatability(args) => cmd::repeatability::execute(args),
        Command::Peers(args) => cmd::peers::execute(args),
        Command::Compile(args) => cmd::compile::execute(args),
        Command::Measure(args) => cmd::measure::execute(args),
        Command::Worker(args) => cmd::worker::execute(args),
        Command::Profile(args) => cmd::profile::execute(args),
        Command::Sass(args) => cmd::sass::execute(args),
        Command::Sanitize(args) => cmd::sanitize::execute(args),
        Command::Plan(args) => cmd::plan::execute(args),
        Command::LaunchOnce(args) => cmd::launch_once::execute(args),
        Command::Allreduce(args) => cmd::allreduce::execute(args),
        Command::Serve(args) => serve::execute(args),
    }
}
