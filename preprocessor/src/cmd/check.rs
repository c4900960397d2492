//! `mdbook-cuda check [--book DIR] [--arch sm_90]`: compiles every runnable
//! example of the book with NVRTC, without a GPU and without measuring,
//! and prints one line per example. Exits non-zero when an example does not
//! resolve or does not compile (unless it declares `expect =
//! "compile-error"`), so authors and CI catch mistakes before a GPU build.

use crate::book_files;
use crate::catalog::Catalog;
use crate::config::Settings;
use cuda_runner::compile::{self, CompileError};
use cuda_runner::declaration::Expectation;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The book's root folder (holding book.toml).
    #[arg(long, default_value = ".")]
    pub book: PathBuf,
    /// GPU architecture to compile for.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
}

/// How one example fared.
struct Verdict {
    ok: bool,
    summary: String,
    log: String,
}

/// Compiles every example; exit 1 when any fails.
pub fn execute(args: &Args) -> anyhow::Result<ExitCode> {
    let disk = book_files::load(&args.book)?;
    let settings = Settings::load(&disk.root, &disk.config, |k| std::env::var(k).ok())?;
    let catalog = Catalog::build(&settings, &disk.chapters);
    let mut rows = Vec::new();
    let mut logs = Vec::new();
    let mut failed = 0;
    let mut nvrtc_missing: Option<CompileError> = None;
    for entry in catalog.entries.iter().filter(|e| e.repeat_of.is_none()) {
        let verdict = match &entry.resolved {
            Err(message) => Verdict {
                ok: false,
                summary: "does not resolve".into(),
                log: message.clone(),
            },
            Ok(_) if nvrtc_missing.is_some() => not_compiled(),
            Ok(resolved) => match check_one(&resolved.example, &args.arch) {
                Ok(verdict) => verdict,
                Err(e) => {
                    nvrtc_missing = Some(e);
                    not_compiled()
                }
            },
        };
        if !verdict.ok {
            failed += 1;
        }
        if !verdict.log.trim().is_empty() {
            logs.push(format!(
                "--- {} ({})\n{}",
                entry.shown_id(),
                entry.place,
                verdict.log.trim_end()
            ));
        }
        rows.push(vec![
            if verdict.ok { "ok" } else { "FAIL" }.to_string(),
            entry.shown_id(),
            entry.place.to_string(),
            verdict.summary,
        ]);
    }
    print!(
        "{}",
        super::format_table(&["", "example", "place", "result"], &rows)
    );
    for log in &logs {
        println!("{log}");
    }
    println!(
        "{} example(s) checked for {}: {} passed, {failed} failed",
        rows.len(),
        args.arch,
        rows.len() - failed
    );
    if let Some(e) = nvrtc_missing {
        println!("not every example was compiled: {e}");
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn not_compiled() -> Verdict {
    Verdict {
        ok: false,
        summary: "not compiled: NVRTC was not found".into(),
        log: String::new(),
    }
}

/// Compiles one example; a missing NVRTC is returned as the error, since
/// no other example can be compiled either.
fn check_one(example: &cuda_runner::example::Example, arch: &str) -> Result<Verdict, CompileError> {
    let declared_error = example.declaration.expect == Expectation::CompileError;
    Ok(match compile::compile(example, arch) {
        Ok(compiled) if declared_error => Verdict {
            ok: false,
            summary: "compiles, but declares expect = \"compile-error\"".into(),
            log: compiled.log,
        },
        Ok(compiled) => Verdict {
            ok: true,
            summary: if compiled.log.trim().is_empty() {
                "compiles".into()
            } else {
                "compiles, with warnings".into()
            },
            log: compiled.log,
        },
        Err(e @ CompileError::NoNvrtc) => return Err(e),
        Err(CompileError::Source { first_error, log }) => Verdict {
            ok: declared_error,
            summary: if declared_error {
                format!("compile error, as declared: {first_error}")
            } else {
                format!("compile error: {first_error}")
            },
            log,
        },
        Err(e) => Verdict {
            ok: false,
            summary: e.to_string(),
            log: String::new(),
        },
    })
}
