//! `mdbook-cuda check [--book DIR] [--arch sm_90]`: compiles every runnable
//! example of the book with NVRTC, without a GPU and without measuring,
//! and prints one line per example. Exits non-zero when an example does not
//! resolve or does not compile (unless it declares `expect =
//! "compile-error"`), or when its declaration does not match the kernels
//! NVRTC compiled (a kernel the program does not define, a kernel without
//! `extern "C"`, `args` that do not match the kernel's parameters), so
//! authors and CI catch mistakes before a GPU build.
//! The compiling is the runner's (`cuda-runner compile`, the `runner` of
//! `[preprocessor.cuda]`): this plugin never loads NVRTC or CUDA itself.

use crate::book_files;
use crate::catalog::Catalog;
use crate::config::Settings;
use anyhow::Context;
use cuda_measured_core::compile_job::{CompileJob, CompileVerdict};
use cuda_measured_core::declaration::Expectation;
use cuda_measured_core::example::Example;
use cuda_measured_core::ptx::Entry;
use cuda_measured_core::signature;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

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
    let examples: Vec<Example> = catalog
        .entries
        .iter()
        .filter(|e| e.repeat_of.is_none())
        .filter_map(|e| e.resolved.as_ref().ok().map(|r| r.example.clone()))
        .collect();
    // Without a runner, unresolved examples are still reported.
    let (verdicts, mut nvrtc_missing) = match compile_all(&settings.runner, &args.arch, examples) {
        Ok(verdicts) => (verdicts, None),
        Err(e) => (Vec::new(), Some(format!("{e:#}"))),
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
                log: message.clone(),
            },
            Ok(resolved) => match compiled.next() {
                Some(CompileVerdict::NoNvrtc { message }) => {
                    nvrtc_missing = Some(message);
                    not_compiled()
                }
                Some(v) => judge(&resolved.example, v),
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
    if let Some(message) = nvrtc_missing {
        println!("not every example was compiled: {message}");
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
        summary: "not compiled (the reason is below)".into(),
        log: String::new(),
    }
}

/// Has the runner compile `examples` and returns one verdict per example.
fn compile_all(
    runner: &Path,
    arch: &str,
    examples: Vec<Example>,
) -> anyhow::Result<Vec<CompileVerdict>> {
    let count = examples.len();
    let mut job = tempfile::NamedTempFile::new().context("writing the compile job")?;
    job.write_all(&serde_json::to_vec(&CompileJob { examples })?)
        .context("writing the compile job")?;
    let output = Command::new(runner)
        .args(["compile", "--arch", arch, "--job"])
        .arg(job.path())
        .stdin(Stdio::null())
        .output()
        .with_context(|| {
            format!(
                "could not start `{} compile`: build it with `cargo build -p cuda-runner`, or set `runner` in [preprocessor.cuda]",
                runner.display()
            )
        })?;
    if !output.status.success() {
        anyhow::bail!(
            "`{} compile` failed ({}): {}",
            runner.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let verdicts: Vec<CompileVerdict> = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("`{} compile` printed no verdicts", runner.display()))?;
    anyhow::ensure!(
        verdicts.len() == count,
        "`{} compile` returned {} verdicts for {count} examples",
        runner.display(),
        verdicts.len()
    );
    Ok(verdicts)
}

/// The verdict on one example, given what it declares.
fn judge(example: &Example, verdict: CompileVerdict) -> Verdict {
    let declared_error = example.declaration.expect == Expectation::CompileError;
    match verdict {
        CompileVerdict::Compiled { log, .. } if declared_error => Verdict {
            ok: false,
            summary: "compiles, but declares expect = \"compile-error\"".into(),
            log,
        },
        CompileVerdict::Compiled { log, entries, .. } => {
            match declared_kernels(example, &entries) {
                Err(message) => Verdict {
                    ok: false,
                    summary: format!("compiles, but does not match its declaration: {message}"),
                    log,
                },
                Ok(()) => Verdict {
                    ok: true,
                    summary: if log.trim().is_empty() {
                        "compiles".into()
                    } else {
                        "compiles, with warnings".into()
                    },
                    log,
                },
            }
        }
        CompileVerdict::Refused { first_error, log } => Verdict {
            ok: declared_error,
            summary: if declared_error {
                format!("compile error, as declared: {first_error}")
            } else {
                format!("compile error: {first_error}")
            },
            log,
        },
        CompileVerdict::NoNvrtc { message } | CompileVerdict::Failed { message } => Verdict {
            ok: false,
            summary: message,
            log: String::new(),
        },
    }
}

/// The declaration against the compiled program's kernels
/// ([`signature::check`]). An example that declares `expect =
/// "launch-error"` may name a kernel the program lacks: the runner reports
/// that as the launch error it declares.
fn declared_kernels(example: &Example, entries: &[Entry]) -> Result<(), String> {
    let result = signature::check(example, entries);
    if example.declaration.expect == Expectation::LaunchError
        && signature::kernels_defined(example, entries).is_err()
    {
        return Ok(());
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuda_measured_core::ptx::ParamKind;

    fn example(expect: &str, args: &str) -> Example {
        let body = format!(
            "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n{expect}[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = {args}\n+++*/\n"
        );
        let dir = tempfile::tempdir().unwrap();
        Example::from_inline(dir.path(), "src/ch.md", dir.path(), &body, 3, "demo").unwrap()
    }

    fn compiled(name: &str) -> CompileVerdict {
        CompileVerdict::Compiled {
            log: String::new(),
            cubin_bytes: 1,
            entries: vec![Entry {
                name: name.into(),
                params: vec![ParamKind::U64, ParamKind::U64, ParamKind::U32],
            }],
        }
    }

    // A declaration that matches its kernel passes; one whose args do not
    // is a failure naming the `args` line.
    #[test]
    fn a_mismatched_declaration_fails_the_check() {
        let ok = judge(&example("", r#"["input", "out", "n"]"#), compiled("k"));
        assert!(ok.ok, "{}", ok.summary);
        let bad = judge(&example("", r#"["input", "out"]"#), compiled("k"));
        assert!(!bad.ok);
        assert!(
            bad.summary.starts_with(
                "compiles, but does not match its declaration: launch 0 (`k`) passes 2 arguments (input, out), but the kernel takes 3 parameters"
            ),
            "{}",
            bad.summary
        );
        assert!(
            bad.summary.ends_with("in `args` at src/ch.md:10"),
            "{}",
            bad.summary
        );
    }

    // A missing kernel is what an example declaring a launch error may
    // demonstrate; otherwise it fails.
    #[test]
    fn a_missing_kernel_passes_only_when_a_launch_error_is_declared() {
        let args = r#"["input", "out", "n"]"#;
        let plain = judge(&example("", args), compiled("_Z1kPKfPfj"));
        assert!(!plain.ok);
        assert!(
            plain
                .summary
                .contains("only under its C++ name `_Z1kPKfPfj`"),
            "{}",
            plain.summary
        );
        let declared = judge(
            &example("expect = \"launch-error\"\n", args),
            compiled("_Z1kPKfPfj"),
        );
        assert!(declared.ok, "{}", declared.summary);
    }
}
