//! `mdbook-cuda status [--book DIR]`: which examples have current results,
//! which are stale, missing, broken or not as declared, and which
//! directives point at data that is not measured; read from the store
//! only, never measuring. Exits non-zero when a strict build would fail.

use crate::book_files;
use crate::book_pass::{run_pass, summary_line};
use crate::config::{Mode, Settings};
use crate::measure::IsolatedBench;
use crate::outcome::Outcome;
use crate::render::Target;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `status`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The book's root folder (holding book.toml).
    #[arg(long, default_value = ".")]
    pub book: PathBuf,
}

/// Prints the state of every example; exit 1 when any is a problem.
pub fn execute(args: &Args) -> anyhow::Result<ExitCode> {
    let disk = book_files::load(&args.book)?;
    let mut settings = Settings::load(&disk.root, &disk.config, |k| std::env::var(k).ok())?;
    settings.mode = Mode::Frozen;
    let mut bench = IsolatedBench::new(settings.runner.clone());
    let pass = run_pass(
        &disk.chapters,
        &settings,
        Target::Markdown,
        &mut bench,
        &mut std::io::stderr(),
    )?;
    let rows: Vec<Vec<String>> = pass
        .catalog
        .entries
        .iter()
        .zip(&pass.settled.outcomes)
        .filter(|(entry, _)| entry.repeat_of.is_none())
        .map(|(entry, outcome)| {
            vec![
                state_word(outcome).to_string(),
                entry.shown_id(),
                entry.place.to_string(),
            ]
        })
        .collect();
    print!(
        "{}",
        super::format_table(&["state", "example", "place"], &rows)
    );
    println!("{}", summary_line(&pass.catalog, &pass.settled));
    for problem in &pass.report.problems {
        println!("{problem}");
    }
    Ok(if pass.report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn state_word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Fresh(r) if !r.as_expected() => "not as declared",
        Outcome::Fresh(r) if r.status != cuda_measured_core::record::Status::Pass => {
            "current (expected failure)"
        }
        Outcome::Fresh(_) => "current",
        Outcome::Unstored { .. } => "measured, NOT stored",
        Outcome::Stale(_) => "stale",
        Outcome::Missing => "not measured",
        Outcome::Broken(_) => "broken",
    }
}
