//! `cuda-runner sass PATHS`: write what the compiler made of examples
//! (each kernel's registers, stack, shared and local memory and its SASS
//! with source lines) into results/sass/<id>.json, where `{{#sass}}` reads
//! them. Needs NVRTC, cuobjdump and nvdisasm, no GPU.

use super::resolve::{load_examples, results_file, write_json};
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// Arguments of `sass`.
#[derive(clap::Args)]
pub struct Args {
    /// Kernel files or folders of them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The architecture to compile for (the book's target GPU's).
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    /// The folder holding cuobjdump and nvdisasm (default: PATH).
    #[arg(long)]
    pub tools: Option<PathBuf>,
}

/// Writes one listing per example (none for one meant not to compile),
/// failing at the end when any could not be made.
pub fn execute(args: Args) -> Result<()> {
    let examples = load_examples(&args.paths)?;
    let mut failed = 0;
    for example in &examples {
        if example.declaration.expect == cuda_runner::declaration::Expectation::CompileError {
            println!("{}: meant not to compile, no listing", example.id);
            continue;
        }
        if let Some(sweep) = &example.declaration.sweep {
            // One listing per compilation; {{#sass}} takes none of these yet.
            println!(
                "{}: sweeps {}, no listing ({{{{#sass}}}} does not take swept examples yet)",
                example.id,
                sweep.name()
            );
            continue;
        }
        let made = cuda_runner::listing::make(example, &args.arch, args.tools.as_deref()).and_then(
            |listing| {
                let out = results_file(
                    Path::new(&example.origin.file),
                    &cuda_runner::sass::relative_path(&example.id),
                )?;
                write_json(&out, &listing)?;
                Ok((listing, out))
            },
        );
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
