//! `mdbook-cuda`: without a subcommand, the mdBook preprocessor (book JSON
//! on stdin, processed book on stdout); `supports`, `check` and `status`
//! are subcommands.

use clap::{Parser, Subcommand};
use mdbook_cuda::cmd;
use std::process::ExitCode;

/// The mdBook preprocessor of CUDA, Measured: runs the book's CUDA
/// examples and renders their measured results.
#[derive(Debug, Parser)]
#[command(name = "mdbook-cuda", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Tell mdBook whether a renderer is supported (exit 0 if so).
    Supports(cmd::supports::Args),
    /// Compile every runnable example with NVRTC; no GPU needed.
    Check(cmd::check::Args),
    /// List which examples are current, stale, missing or broken.
    Status(cmd::status::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        None => {
            // As mdBook's preprocessor this process may start measuring
            // children on the GPU: if mdBook is killed, this process and,
            // through their own parent-death signal, those children go too.
            if !cuda_measured_core::lifetime::die_with_parent() {
                eprintln!(
                    "mdbook-cuda: mdBook, which started this preprocessor, has already exited"
                );
                return ExitCode::FAILURE;
            }
            cmd::run::execute().map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Supports(args)) => cmd::supports::execute(args),
        Some(Command::Check(args)) => cmd::check::execute(args),
        Some(Command::Status(args)) => cmd::status::execute(args),
    };
    // An error meant for the author: `error:` lines with its causes and a
    // non-zero exit, never a backtrace (a panic is a bug and may show one).
    result.unwrap_or_else(|e| {
        eprintln!("mdbook-cuda: error: {e}");
        for cause in e.chain().skip(1) {
            eprintln!("  caused by: {cause}");
        }
        ExitCode::FAILURE
    })
}
