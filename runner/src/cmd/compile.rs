//! `cuda-runner compile --job FILE` (hidden): the compile-only entry of the
//! book build and `mdbook-cuda check`. Prints, as one JSON object, this
//! runner's version, the NVRTC it loaded and one verdict per example. The
//! examples are compiled in a worker process, each within its compile
//! limit ([`super::compile_workers`]); `--from K` is that worker.

use anyhow::{Context, Result};
use cuda_runner::compile;
use cuda_runner::compile_job::{CompileAnswer, CompileJob, CompileVerdict, Nvrtc};
use cuda_runner::example::Example;
use std::path::{Path, PathBuf};

/// Arguments of `compile`.
#[derive(clap::Args)]
pub struct Args {
    /// The job file written by the plugin.
    #[arg(long)]
    pub job: PathBuf,
    /// Target architecture.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    /// Be the worker of [`super::compile_workers`]: compile the job's
    /// examples from this position on, printing one verdict line each.
    #[arg(long, hide = true)]
    pub from: Option<usize>,
}

/// Compiles every example of the job and prints the answer.
pub fn execute(args: Args) -> Result<()> {
    let job = &args.job;
    let text =
        std::fs::read_to_string(job).with_context(|| format!("reading {}", job.display()))?;
    let job: CompileJob = serde_json::from_str(&text).context("parsing the compile job")?;
    if let Some(from) = args.from {
        return super::compile_workers::work(&args.arch, job.examples.get(from..).unwrap_or(&[]));
    }
    let nvrtc = compile::nvrtc_version().map(|version| Nvrtc {
        version,
        library: loaded_library("libnvrtc"),
    });
    let nvrtc_missing = nvrtc
        .is_none()
        .then(|| compile::CompileError::NoNvrtc.to_string());
    let verdicts: Vec<CompileVerdict> = match &nvrtc_missing {
        // Nothing to start a worker for.
        Some(message) => job
            .examples
            .iter()
            .map(|_| CompileVerdict::NoNvrtc {
                message: message.clone(),
            })
            .collect(),
        None => super::compile_workers::verdicts(&args.job, &args.arch, &job.examples)?,
    };
    let answer = CompileAnswer {
        runner: env!("CARGO_PKG_VERSION").to_string(),
        nvrtc,
        nvrtc_missing,
        verdicts,
    };
    println!("{}", serde_json::to_string(&answer)?);
    Ok(())
}

/// NVRTC's verdict on one example, as the compile job reports it: for an
/// example that sweeps a parameter, each value is compiled and held to
/// the declaration, and the first value that fails gives the verdict, its
/// error naming the value (`with STRIDE = 4: ...`); when none fails, the
/// last value's.
pub fn verdict_of(example: &Example, arch: &str) -> CompileVerdict {
    let mut last = None;
    for (value, variant) in example.variants() {
        let verdict = one_verdict(&variant, arch);
        let Some(value) = value else {
            return verdict;
        };
        if cuda_measured_core::compile_judge::judge(&variant, &verdict)
            .broken()
            .is_some()
        {
            return match verdict {
                CompileVerdict::Refused { first_error, log } => CompileVerdict::Refused {
                    first_error: format!("with {value}: {first_error}"),
                    log,
                },
                CompileVerdict::Failed { message } => CompileVerdict::Failed {
                    message: format!("with {value}: {message}"),
                },
                other => other,
            };
        }
        last = Some(verdict);
    }
    last.expect("a sweep has at least one value")
}

/// NVRTC's verdict on one compilation.
fn one_verdict(example: &Example, arch: &str) -> CompileVerdict {
    match compile::compile(example, arch) {
        Ok(c) => CompileVerdict::Compiled {
            log: c.log,
            cubin_bytes: c.cubin.len(),
            entries: c.entries,
        },
        Err(compile::CompileError::Source { first_error, log }) => {
            CompileVerdict::Refused { first_error, log }
        }
        Err(e @ compile::CompileError::NoNvrtc) => CompileVerdict::NoNvrtc {
            message: e.to_string(),
        },
        Err(e) => CompileVerdict::Failed {
            message: e.to_string(),
        },
    }
}

/// The file of the shared library whose name starts with `prefix` that
/// this process has loaded, from /proc/self/maps (Linux; elsewhere `None`).
/// The book's compile cache notices a library replaced in place by it.
fn loaded_library(prefix: &str) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            Path::new(path).file_name().is_some_and(|name| {
                // `libnvrtc.so.13`, not `libnvrtc-builtins.so.13`.
                let name = name.to_string_lossy();
                name.strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with(".so"))
            })
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An inline example sweeping STRIDE over 1, 2, 4 whose source is
    /// `body`.
    fn swept(body: &str) -> Example {
        let header = "/*+++\nproblem = \"sum_f32\"\nsizes = [1024]\n[sweep]\nSTRIDE = [1, 2, 4]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\", \"STRIDE\"]\n+++*/\n";
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{header}{body}");
        Example::from_inline(dir.path(), "src/ch.md", dir.path(), &text, 1, "s").unwrap()
    }

    // Every value of a sweep is compiled with its own -D: a source that
    // fails at one value only is refused, naming that value; one that
    // needs STRIDE defined compiles at every value. Needs NVRTC on the
    // loader path, as scripts/test puts it.
    #[test]
    fn each_value_of_a_sweep_is_compiled() {
        let kernel = "extern \"C\" __global__ void k(const float* x, float* out, unsigned n, unsigned s) { out[0] = x[STRIDE]; }\n";
        match verdict_of(&swept(kernel), "sm_90") {
            CompileVerdict::Compiled { entries, .. } => assert_eq!(entries[0].name, "k"),
            CompileVerdict::NoNvrtc { message } => panic!("{message}"),
            other => panic!("{other:?}"),
        }
        let at_two = format!("static_assert(STRIDE != 2, \"two\");\n{kernel}");
        match verdict_of(&swept(&at_two), "sm_90") {
            CompileVerdict::Refused { first_error, .. } => {
                assert!(
                    first_error.starts_with("with STRIDE = 2: "),
                    "{first_error}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    // The loaded library is found by its name's prefix followed by `.so`:
    // this test process has the C library loaded (`libc.so.6`), and no
    // library named `libnvrtc.so*` (NVRTC is loaded only when compiling).
    #[cfg(target_os = "linux")]
    #[test]
    fn loaded_library_matches_the_prefix_then_so() {
        let libc = super::loaded_library("libc").expect("libc is loaded");
        let name = std::path::Path::new(&libc).file_name().unwrap();
        assert!(name.to_string_lossy().starts_with("libc.so"), "{libc}");
        assert_eq!(super::loaded_library("libnvrtc"), None);
    }
}
