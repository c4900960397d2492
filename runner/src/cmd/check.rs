//! `cuda-runner check PATHS`: compile examples with NVRTC only (no GPU
//! needed), judged as `mdbook-cuda check` judges them, and read the
//! directives of the book they belong to.

use super::compile_workers::verdicts_of;
use super::resolve::{book_of, read_examples};
use anyhow::{Result, bail};
use cuda_runner::compile_job::CompileVerdict;
use cuda_runner::compile_judge::judge;
use cuda_runner::plan_check;
use std::path::PathBuf;

/// Arguments of `check`.
#[derive(clap::Args)]
pub struct Args {
    /// `.cu` files or folders.
    pub paths: Vec<PathBuf>,
    /// Target architecture.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
}

/// Prints `ok` or `FAILED` per example and per mistaken directive, failing
/// at the end when any failed.
pub fn execute(args: Args) -> Result<()> {
    let (paths, arch) = (&args.paths, args.arch.as_str());
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
    // The same judgement as `mdbook-cuda check`: the plan at every size on
    // the H200, then NVRTC's verdict (each example within its compile
    // limit) held to the declaration.
    let plans: Vec<_> = examples.iter().map(plan_check::check_as_declared).collect();
    let planned: Vec<_> = examples
        .iter()
        .zip(&plans)
        .filter(|(_, plan)| plan.is_ok())
        .map(|(example, _)| example.clone())
        .collect();
    let mut verdicts = verdicts_of(arch, &planned)?.into_iter();
    for (example, plan) in examples.iter().zip(plans) {
        let (ok, summary, log) = match plan {
            Err(mistake) => (false, mistake.to_string(), String::new()),
            Ok(()) => {
                let verdict = verdicts.next().expect("one verdict per planned example");
                let judgement = judge(example, &verdict);
                let log = match &verdict {
                    CompileVerdict::Refused { log, .. } if !judgement.ok() => log.clone(),
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
            Ok(mdbook_cuda::directives::check::check(
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
