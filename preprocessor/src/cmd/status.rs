//! `mdbook-cuda status [--book DIR]`: which examples have current results,
//! which are stale, missing, broken or not as declared; then the other
//! stored evidence the directives use (profiles, SASS listings, sanitizer
//! reports, host runs, peers, repeatability and all-reduce reports), each file with
//! its state, where it is used, its date and tool, and the command that
//! makes it again ([`crate::evidence`]); and which directives point at
//! data that is not measured; read from the store,
//! never measuring (like a build, it compiles the examples through the
//! runner when it can, using and filling the compile cache in
//! `.cuda-measured/`). The states are [`Outcome::state`]'s, the same
//! as the `{{#status}}` page's. Exits non-zero when a strict build would
//! fail (an author build, under `CUDA_MEASURED_STRICT=author`).

use crate::book_files;
use crate::book_pass::{run_pass, summary_line};
use crate::config::{Mode, OnFailure, Settings, Strict};
use crate::evidence::{Evidence, State};
use crate::measure::IsolatedBench;
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

/// The stored evidence the directives use, one line per file grouped by
/// kind, with what makes the files that are not current.
fn print_evidence(evidence: &Evidence) {
    if evidence.rows.is_empty() {
        return;
    }
    let rows: Vec<Vec<String>> = evidence
        .rows
        .iter()
        .map(|r| {
            vec![
                r.state.word().to_string(),
                r.kind.word().to_string(),
                r.file.clone(),
                r.places.join(", "),
                r.date.clone().unwrap_or_else(|| "—".into()),
                r.tool
                    .clone()
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| "—".into()),
                match r.state {
                    State::Current => String::new(),
                    State::Error => "fix the directive".into(),
                    State::Stale | State::Missing => r.kind.command(),
                },
            ]
        })
        .collect();
    println!();
    print!(
        "{}",
        super::format_table(
            &[
                "state",
                "evidence",
                "file",
                "used at",
                "made",
                "tool",
                "to make it"
            ],
            &rows
        )
    );
    println!("[cuda] {}", evidence.summary());
    if let Some(remedy) = evidence.remedy() {
        println!("{remedy}");
    }
}

/// Prints the state of every example and of the other stored evidence
/// the directives use; exit 1 when any is a problem.
pub fn execute(args: &Args) -> anyhow::Result<ExitCode> {
    let disk = book_files::load(&args.book)?;
    let mut settings = Settings::load(&disk.root, &disk.config, |k| std::env::var(k).ok())?;
    settings.mode = Mode::Frozen;
    let mut bench = IsolatedBench::new(
        settings.runner.clone(),
        cuda_measured_core::session::Config::from_env(),
    );
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
                outcome.state().word().to_string(),
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
    print_evidence(&pass.evidence);
    for problem in &pass.report.problems {
        println!("{problem}");
    }
    // Judged as a strict build, or as an author build when that is asked.
    let strict = match settings.strict {
        Strict::Author => Strict::Author,
        Strict::Off | Strict::On => Strict::On,
    };
    Ok(if pass.report.fails(strict, OnFailure::Continue) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
