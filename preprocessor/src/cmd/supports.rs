//! `mdbook-cuda supports RENDERER`: mdBook asks before each build whether
//! the preprocessor handles a renderer. Every renderer is handled: `html`
//! gets HTML panels, the others markdown tables, and `test` (rustdoc on
//! Rust blocks) never measures.

use crate::book_pass::CudaPreprocessor;
use mdbook_preprocessor::Preprocessor;
use std::process::ExitCode;

/// Arguments of `supports`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Renderer name (`html`, `markdown`, `test`, ...).
    pub renderer: String,
}

/// Exit 0 when the renderer is supported, 1 otherwise.
pub fn execute(args: &Args) -> anyhow::Result<ExitCode> {
    let supported = CudaPreprocessor.supports_renderer(&args.renderer)?;
    Ok(if supported {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
