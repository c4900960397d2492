//! The preprocessor protocol: read `[context, book]` JSON from stdin, write
//! the processed book JSON to stdout. Progress and problems go to stderr,
//! which mdBook shows.

use crate::book_pass::CudaPreprocessor;
use anyhow::Context;
use mdbook_preprocessor::{MDBOOK_VERSION, Preprocessor};

/// Processes the book mdBook sends on stdin.
pub fn execute() -> anyhow::Result<()> {
    let (ctx, book) = mdbook_preprocessor::parse_input(std::io::stdin().lock())?;
    if ctx.mdbook_version != MDBOOK_VERSION {
        eprintln!(
            "[cuda] warning: mdbook-cuda was built against mdBook {MDBOOK_VERSION}, but is called from mdBook {}",
            ctx.mdbook_version
        );
    }
    let book = CudaPreprocessor.run(&ctx, book)?;
    let stdout = std::io::stdout().lock();
    serde_json::to_writer(stdout, &book).context("writing the book to stdout")?;
    Ok(())
}
