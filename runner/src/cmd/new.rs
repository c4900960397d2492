//! `cuda-runner new CHAPTER/NAME --problem P`: write a new example's file
//! with a header for the problem and a minimal correct kernel (never
//! overwriting), then print the block to paste and the next steps.

use anyhow::{Result, bail};
use cuda_measured_core::template;
use std::path::PathBuf;

/// Arguments of `new`.
#[derive(clap::Args)]
pub struct Args {
    /// `CHAPTER/NAME`: the chapter's folder under kernels/ and the
    /// example's name (`reductions/my_sum`).
    pub target: String,
    /// The problem the kernel solves.
    #[arg(long)]
    pub problem: String,
    /// The book's kernels folder.
    #[arg(long, default_value = "kernels")]
    pub kernels: PathBuf,
}

/// Writes kernels/CHAPTER/NAME.cu and prints what to do next.
pub fn execute(args: Args) -> Result<()> {
    let kernels = &args.kernels;
    if !kernels.is_dir() {
        bail!(
            "no folder {}: run this in the book's root (beside book.toml), or pass --kernels",
            kernels.display()
        );
    }
    let example = template::new_example(&args.target, &args.problem)?;
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
