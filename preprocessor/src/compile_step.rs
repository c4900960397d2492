//! The compile step of every build and preview: each example is compiled
//! with NVRTC (through the runner, [`compile_run`]) for the book's target
//! architecture, and held to its declaration ([`compile_judge`](cuda_measured_core::compile_judge)); an
//! example that does not compile (unless it declares `expect =
//! "compile-error"`) or whose declaration does not match its kernels is
//! broken, at its place, before anything is measured.
//!
//! Verdicts are cached per example ([`compile_cache`](crate::compile_cache)): only cache misses
//! go to the runner, all in one run, and a build with nothing changed
//! starts no runner. The runner holds each example to its compile limit
//! (`compile_timeout_s`, [`DEFAULT_COMPILE_TIMEOUT_S`](cuda_measured_core::compile_job::DEFAULT_COMPILE_TIMEOUT_S)): one that runs
//! into it is broken as a compile time-out, cached like a compile error,
//! and never measured; the others compile as usual. Without a runner or
//! without NVRTC the build goes on as before, with one `[cuda]` line
//! saying that its kernels were not compiled here, which is fine for a
//! build from the committed results ([`NotCompiled::Unavailable`]); a
//! runner that fails is said as a failure ([`NotCompiled::Failed`]).
//! `compile = false` under `[preprocessor.cuda]`, or
//! `CUDA_MEASURED_COMPILE=0`, turns the step off.

use crate::catalog::Catalog;
use crate::compile_cache::{Cache, Compiler};
use crate::compile_run::{self, ARCH};
use crate::config::Settings;
use cuda_measured_core::compile_job::{CompileAnswer, CompileVerdict};
use cuda_measured_core::compile_judge::judge;
use std::io::Write;
use std::path::Path;

/// What compiling said of the book's examples.
#[derive(Debug, Clone, Default)]
pub struct Compiled {
    /// Per catalog entry: why it is broken, when compiling says it is
    /// (with its place, as the panel and stderr show it).
    broken: Vec<Option<String>>,
    /// Examples the runner compiled in this build (cache misses).
    pub compiled: usize,
    /// Examples whose verdict came from the cache.
    pub cached: usize,
}

impl Compiled {
    /// Why entry `index` is broken, when compiling says it is.
    pub fn broken(&self, index: usize) -> Option<&str> {
        self.broken.get(index)?.as_deref()
    }

    /// What compiling says, given why each entry is broken (tests of what
    /// follows compiling).
    #[cfg(test)]
    pub(crate) fn with_broken(broken: Vec<Option<String>>) -> Compiled {
        Compiled {
            broken,
            ..Compiled::default()
        }
    }
}

/// Why a build compiled none of its examples.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotCompiled {
    /// No runner, or a runner without NVRTC: nothing to compile with here,
    /// which a build from the committed results does not need.
    #[error("{0}")]
    Unavailable(String),
    /// The runner was asked and failed: it crashed, printed no verdicts,
    /// or ran past its time limit.
    #[error("{0}")]
    Failed(String),
}

/// The fewest verdicts the compile cache keeps when it is pruned (after
/// every build that compiled something).
const PRUNE_FLOOR: usize = 256;

/// The environment variable whose value a runner's NVRTC depends on.
const LOADER_PATH: &str = "LD_LIBRARY_PATH";

/// Compiles the examples of `catalog` as `settings` say (cached); lines
/// for the reader go to `log`.
pub fn compile_book(catalog: &Catalog, settings: &Settings, log: &mut dyn Write) -> Compiled {
    let mut compiled = Compiled {
        broken: vec![None; catalog.entries.len()],
        ..Compiled::default()
    };
    let firsts: Vec<usize> = (0..catalog.entries.len())
        .filter(|&i| catalog.entries[i].repeat_of.is_none())
        .filter(|&i| catalog.entries[i].resolved.is_ok())
        .collect();
    if !settings.compile || firsts.is_empty() {
        return compiled;
    }
    let verdicts = match cached_verdicts(catalog, &firsts, settings, ARCH, log) {
        Ok(verdicts) => verdicts,
        Err(NotCompiled::Unavailable(why)) => {
            let _ = writeln!(
                log,
                "[cuda] kernels not compiled here: fine for a build from the committed results (scripts/test compiles every kernel); to compile them in every build: {why}"
            );
            return compiled;
        }
        Err(NotCompiled::Failed(why)) => {
            let _ = writeln!(
                log,
                "[cuda] compiling failed: {why}; compile errors and declarations that do not match their kernels show only after measuring (`compile = false` under [preprocessor.cuda], or CUDA_MEASURED_COMPILE=0, turns compiling off)"
            );
            return compiled;
        }
    };
    for (&index, (verdict, cached)) in firsts.iter().zip(verdicts) {
        let entry = &catalog.entries[index];
        let example = entry
            .example()
            .expect("only resolved examples are compiled");
        if cached {
            compiled.cached += 1;
        } else {
            compiled.compiled += 1;
        }
        if let CompileVerdict::Failed { message } = &verdict {
            let _ = writeln!(
                log,
                "[cuda] {}: {}: not compiled: {message}",
                entry.place, example.id
            );
        }
        compiled.broken[index] = judge(example, &verdict)
            .broken()
            .map(|message| format!("{}: {message}", entry.place));
    }
    compiled
}

/// The verdicts on the `firsts` entries of `catalog` for `arch` (with
/// whether each came from the compile cache), compiling only what the
/// cache lacks; or why nothing could be compiled. The book build and
/// `mdbook-cuda check` both compile through it.
pub fn cached_verdicts(
    catalog: &Catalog,
    firsts: &[usize],
    settings: &Settings,
    arch: &str,
    log: &mut dyn Write,
) -> Result<Vec<(CompileVerdict, bool)>, NotCompiled> {
    let cache = Cache::new(&settings.compile_cache);
    let loader_path = std::env::var(LOADER_PATH).ok();
    verdicts(
        catalog,
        firsts,
        settings,
        &cache,
        loader_path.as_deref(),
        arch,
        log,
    )
}

/// Each example's verdict (with whether it came from the cache), or why
/// nothing could be compiled.
fn verdicts(
    catalog: &Catalog,
    firsts: &[usize],
    settings: &Settings,
    cache: &Cache,
    loader_path: Option<&str>,
    arch: &str,
    log: &mut dyn Write,
) -> Result<Vec<(CompileVerdict, bool)>, NotCompiled> {
    let runner = compile_run::locate(&settings.runner).ok_or_else(|| {
        NotCompiled::Unavailable(format!(
            "no runner `{}` (build it with `cargo build -p cuda-runner`, or set `runner` in [preprocessor.cuda])",
            settings.runner.display()
        ))
    })?;
    let compiler = match cache.known_compiler(&runner, loader_path, arch) {
        Some(compiler) => compiler,
        None => ask_compiler(&runner, cache, loader_path, arch)?,
    };
    let resolved = |index: usize| {
        catalog.entries[index]
            .resolved
            .as_ref()
            .expect("only resolved examples are compiled")
    };
    let mut found: Vec<Option<CompileVerdict>> = firsts
        .iter()
        .map(|&i| cache.lookup(&resolved(i).example, &resolved(i).key, &compiler))
        .collect();
    let mut cached: Vec<bool> = found.iter().map(Option::is_some).collect();
    let misses: Vec<usize> = (0..firsts.len()).filter(|&k| !cached[k]).collect();
    if !misses.is_empty() {
        let examples = misses
            .iter()
            .map(|&k| resolved(firsts[k]).example.clone())
            .collect();
        let answer = compile_run::compile(&runner, arch, examples).map_err(failed)?;
        // The runner says who compiled: the cache keeps its verdicts under
        // that, should its NVRTC have changed since it was last asked.
        let by = Compiler::of(&answer, &runner, arch).ok_or_else(|| nvrtc_missing(&answer))?;
        let mut answer = answer;
        let mut misses = misses;
        if by != compiler {
            // Another compiler than the one remembered: hits found under
            // the old one do not hold for this one, so they are compiled too.
            let _ = cache.remember_runner(&runner, loader_path, &answer);
            let hits: Vec<usize> = (0..firsts.len()).filter(|&k| cached[k]).collect();
            if !hits.is_empty() {
                let examples = hits
                    .iter()
                    .map(|&k| resolved(firsts[k]).example.clone())
                    .collect();
                let again = compile_run::compile(&runner, arch, examples).map_err(failed)?;
                for &k in &hits {
                    cached[k] = false;
                }
                misses.extend(hits);
                answer.verdicts.extend(again.verdicts);
            }
        }
        let mut unwritable = None;
        for (&k, verdict) in misses.iter().zip(&answer.verdicts) {
            let r = resolved(firsts[k]);
            if let Err(e) = cache.store(&r.example, &r.key, &by, verdict) {
                unwritable.get_or_insert(e);
            }
        }
        if let Some(e) = unwritable {
            let _ = writeln!(
                log,
                "[cuda] could not write the compile cache in {}: {e}; the next build compiles again",
                settings.shown(cache.dir())
            );
        }
        // Room for several versions of every example, and never less than
        // a few hundred verdicts.
        cache.prune((8 * firsts.len()).max(PRUNE_FLOOR));
        let _ = writeln!(
            log,
            "[cuda] compiled {} example(s) for {arch} with NVRTC {}; {} from the cache in {}",
            misses.len(),
            by.nvrtc,
            firsts.len() - misses.len(),
            settings.shown(cache.dir())
        );
        for (&k, verdict) in misses.iter().zip(answer.verdicts) {
            found[k] = Some(verdict);
        }
    }
    Ok(found
        .into_iter()
        .zip(cached)
        .map(|(verdict, cached)| (verdict.expect("every example answered"), cached))
        .collect())
}

/// Asks the runner which NVRTC it loads (a job without examples), and
/// remembers the answer for the next build.
fn ask_compiler(
    runner: &Path,
    cache: &Cache,
    loader_path: Option<&str>,
    arch: &str,
) -> Result<Compiler, NotCompiled> {
    let answer = compile_run::compile(runner, arch, Vec::new()).map_err(failed)?;
    let compiler = Compiler::of(&answer, runner, arch).ok_or_else(|| nvrtc_missing(&answer))?;
    // Were the answer not remembered, the next build would only ask again.
    let _ = cache.remember_runner(runner, loader_path, &answer);
    Ok(compiler)
}

/// Why the runner cannot compile, in its words.
fn nvrtc_missing(answer: &CompileAnswer) -> NotCompiled {
    NotCompiled::Unavailable(
        answer
            .nvrtc_missing
            .clone()
            .unwrap_or_else(|| "the runner found no NVRTC".into()),
    )
}

/// A run of the runner that failed.
fn failed(e: anyhow::Error) -> NotCompiled {
    NotCompiled::Failed(format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{KERNEL, catalog_of, settings_in};
    use std::os::unix::fs::PermissionsExt;

    /// A runner that notes each call in `calls` beside it and answers as
    /// `cuda-runner compile` does: example `bad` does not compile, `odd`
    /// makes NVRTC fail, `slow` runs into its compile limit, every other
    /// one compiles to kernel `tree`.
    const FAKE_RUNNER: &str = r#"#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.path.join(os.path.dirname(sys.argv[0]), "calls"), "a") as f:
    f.write(" ".join(args[:3]) + "\n")
job = json.load(open(args[args.index("--job") + 1]))
def verdict(example):
    if example["id"] == "bad":
        return {"outcome": "refused", "first_error": "src/ch.md(12): error: x", "log": "src/ch.md(12): error: x"}
    if example["id"] == "odd":
        return {"outcome": "failed", "message": "NVRTC failed: out of memory"}
    if example["id"] == "slow":
        return {"outcome": "timed-out", "limit_s": 5}
    return {"outcome": "compiled", "log": "", "cubin_bytes": 1,
            "entries": [{"name": "tree", "params": ["u64", "u64", "u32"]}]}
print(json.dumps({"runner": "0.1.0", "nvrtc": {"version": "13.0", "library": None},
    "verdicts": [verdict(e) for e in job["examples"]]}))
"#;

    // Verdicts become broken examples at their places (a compile time-out
    // among them); a failure of NVRTC itself is said and breaks nothing; a
    // repeat is not compiled again; the next build takes every verdict but
    // the failed one from the cache (the time-out too), in one run of the
    // runner.
    #[test]
    fn compiles_each_example_once_and_caches_the_verdicts() {
        let (dir, mut settings) = settings_in(&[("kernels/r/tree.cu", KERNEL)]);
        let runner = dir.path().join("fake-runner");
        std::fs::write(&runner, FAKE_RUNNER).unwrap();
        std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
        settings.runner = runner;
        settings.compile = true;
        let text = format!(
            "```cuda run file=r/tree.cu\n```\n\n```cuda run file=r/tree.cu anchor=body\n```\n\n```cuda run id=bad\n{KERNEL}```\n\n```cuda run id=odd\n{KERNEL}```\n\n```cuda run id=slow\n{KERNEL}```\n"
        );
        let catalog = catalog_of(&settings, &text);
        let mut log = Vec::new();
        let compiled = compile_book(&catalog, &settings, &mut log);
        let log = String::from_utf8(log).unwrap();
        let broken: Vec<Option<&str>> = (0..4).map(|i| compiled.broken(i)).collect();
        assert_eq!(
            broken,
            [
                None,
                None,
                Some("src/ch.md:7: does not compile: src/ch.md(12): error: x"),
                None
            ]
        );
        let slow = compiled.broken(4).unwrap();
        assert!(
            slow.starts_with("src/ch.md:37: compile time-out: NVRTC did not finish within 5 s"),
            "{slow}"
        );
        assert_eq!((compiled.compiled, compiled.cached), (4, 0));
        assert!(
            log.contains("[cuda] src/ch.md:22: odd: not compiled: NVRTC failed: out of memory\n"),
            "{log}"
        );
        let calls = || std::fs::read_to_string(dir.path().join("calls")).unwrap();
        assert_eq!(calls().lines().count(), 2, "asked for NVRTC, then compiled");

        let mut log = Vec::new();
        let again = compile_book(&catalog, &settings, &mut log);
        assert_eq!(again.broken(2), compiled.broken(2));
        assert_eq!(again.broken(4), compiled.broken(4));
        assert_eq!((again.compiled, again.cached), (1, 3));
        assert_eq!(calls().lines().count(), 3, "only the failed one again");

        settings.compile = false;
        let off = compile_book(&catalog, &settings, &mut Vec::new());
        assert_eq!(off.broken(2), None);
        assert_eq!(calls().lines().count(), 3);
    }
}
