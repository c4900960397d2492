//! `mdbook-cuda check [--book DIR] [--arch sm_90]`: compiles every runnable
//! example of the book with NVRTC, without a GPU and without measuring,
//! and prints one line per example. Exits non-zero when an example does not
//! resolve or does not compile (unless it declares `expect =
//! "compile-error"`), or when its declaration does not match the kernels
//! NVRTC compiled (a kernel the program does not define, a kernel without
//! `extern "C"`, `args` that do not match the kernel's parameters), or
//! when a directive cannot be read or names an example the book does not
//! have, a broken one or a size the example does not declare
//! ([`crate::directives::check::check`]; an example not measured yet is fine), so authors and
//! CI catch mistakes before a GPU build.
//! The compiling is the runner's (`cuda-runner compile`, the `runner` of
//! `[preprocessor.cuda]`), through the build's compile cache, so only what
//! changed since the last build or check is compiled: this plugin never
//! loads NVRTC or CUDA itself.

use crate::book_files;
use crate::catalog::Catalog;
use crate::compile_run;
use crate::compile_step;
use crate::config::Settings;
use cuda_measured_core::compile_job::CompileVerdict;
use cuda_measured_core::compile_judge::judge;
use cuda_measured_core::example::Example;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The book's root folder (holding book.toml).
    #[arg(long, default_value = ".")]
    pub book: PathBuf,
    /// GPU architecture to compile for.
    #[arg(long, default_value = compile_run::ARCH)]
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
    let firsts: Vec<usize> = (0..catalog.entries.len())
        .filter(|&i| catalog.entries[i].repeat_of.is_none())
        .filter(|&i| catalog.entries[i].resolved.is_ok())
        .collect();
    // Through the build's compile cache: only what changed is compiled.
    // Without a runner, unresolved examples are still reported.
    let (verdicts, mut nvrtc_missing) = if firsts.is_empty() {
        (Vec::new(), None)
    } else {
        match compile_step::cached_verdicts(
            &catalog,
            &firsts,
            &settings,
            &args.arch,
            &mut std::io::stderr(),
        ) {
            Ok(verdicts) => (verdicts.into_iter().map(|(v, _)| v).collect(), None),
            Err(why) => (Vec::new(), Some(why.to_string())),
        }
    };
    let mut compiled = verdicts.into_iter();
    let mut rows = Vec::new();
    let mut logs = Vec::new();
    let mut failed = 0;
    for entry in catalog.entries.iter().filter(|e| e.repeat_of.is_none()) {
        let verdict = match &entry.resolved {
            Err(message) => Verdict {
                ok: false,
                summary: "does not resolve".into(),
                log: message.to_string(),
            },
            Ok(resolved) => match compiled.next() {
                Some(CompileVerdict::NoNvrtc { message }) => {
                    nvrtc_missing = Some(message);
                    not_compiled()
                }
                Some(v) => verdict_of(&resolved.example, v),
                None => not_compiled(),
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
    // The directives, as a build reads them, without a GPU or the store.
    let mistakes = crate::directives::check::check(&settings, &catalog, &disk.chapters);
    for line in &mistakes {
        println!("{line}");
    }
    if !mistakes.is_empty() {
        println!(
            "{} directive(s) cannot be read or name what the book does not have",
            mistakes.len()
        );
    }
    // Figures typed by hand into prose, where directives belong.
    let typed = crate::typed_figures::check(&settings, &catalog, &disk.chapters);
    for line in &typed {
        println!("{line}");
    }
    if !typed.is_empty() {
        println!(
            "{} figure(s) typed into prose: write each with a directive, or mark another's as {{{{#quote SOURCE | TEXT}}}}",
            typed.len()
        );
    }
    if let Some(message) = nvrtc_missing {
        println!("not every example was compiled: {message}");
    }
    Ok(if failed == 0 && mistakes.is_empty() && typed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn not_compiled() -> Verdict {
    Verdict {
        ok: false,
        summary: "not compiled (the reason is below)".into(),
        log: String::new(),
    }
}

/// The row of an example NVRTC was asked about.
fn verdict_of(example: &Example, verdict: CompileVerdict) -> Verdict {
    let judgement = judge(example, &verdict);
    let log = match verdict {
        CompileVerdict::Compiled { log, .. } | CompileVerdict::Refused { log, .. } => log,
        CompileVerdict::NoNvrtc { .. }
        | CompileVerdict::Failed { .. }
        | CompileVerdict::TimedOut { .. } => String::new(),
    };
    Verdict {
        ok: judgement.ok(),
        summary: judgement.summary(),
        log,
    }
}
