//! One reader's run, after the request was read and admitted: the
//! reader's text resolved as the book's example would be, compiled by a
//! compile worker within the compile limit (`cmd::compile_workers`, the
//! book's own machinery), held to the declaration
//! (`compile_judge`), then, with a GPU, measured quickly on the warm
//! workers ([`super::measure`]) and, for an exercise stage, judged by the
//! stage's gates ([`super::gates`]).

use super::answer::{self, Draft};
use super::api::{Outcome, RunAnswer};
use super::catalog::{Book, Runnable};
use super::children::Children;
use super::diagnostics::{self, Scrub};
use super::splice::Spliced;
use cuda_runner::compile_job::{CompileJob, CompileVerdict};
use cuda_runner::example::{Example, ExampleError};
use cuda_runner::record::{Record, Status};
use std::io::Write;
use std::time::{Duration, Instant};

/// What the service holds for every request.
#[derive(Debug)]
pub struct Service {
    /// The book.
    pub book: Book,
    /// How children are started.
    pub children: Children,
    /// Server paths out of answers.
    pub scrub: Scrub,
    /// The architecture compiled for.
    pub arch: String,
    /// Compile limit of a request (an example's own, when lower, wins).
    pub compile_limit: Duration,
    /// Run limit of a request's measuring process.
    pub run_limit: Duration,
    /// The GPU and its warm workers; `None` in compile-only mode.
    pub gpu: Option<super::measure::Gpu>,
    /// The Nsight Compute executable, for stages with profile gates.
    pub ncu: std::path::PathBuf,
}

/// What a request asked to run, found.
#[derive(Debug, Clone)]
pub enum Target {
    /// An example, by its key in [`Book::examples`].
    Example(String),
    /// A stage, by name.
    Stage(String),
}

impl Service {
    /// The runnable `target` names (looked up when the request was read).
    pub fn runnable(&self, target: &Target) -> &Runnable {
        match target {
            Target::Example(id) => &self.book.examples[id],
            Target::Stage(name) => &self.book.stages[name],
        }
    }

    /// Runs the reader's `spliced` text as `target`; every way it can end
    /// is an answer. `waited` is how long the request queued.
    pub fn run(&self, target: &Target, spliced: &Spliced, started: Instant) -> RunAnswer {
        let mut runnable = self.runnable(target);
        let mut draft = self.compiled(runnable, spliced);
        // A stage's text that defines the starter's kernels and not the
        // solution's runs as the starter (spliced into the starter's file).
        let respliced;
        let mut spliced = spliced;
        if draft.mismatch
            && let Some(starter) = &runnable.starter
            && let Ok(again) =
                super::splice::splice(&starter.text, starter.anchor(), &spliced.reader)
        {
            let as_starter = self.compiled(starter, &again);
            if !as_starter.mismatch {
                respliced = again;
                spliced = &respliced;
                runnable = starter;
                draft = as_starter;
            }
        }
        draft.elapsed.compile = ms(started.elapsed());
        let mut profile = None;
        if let Some(example) = draft.measure_next.take() {
            match &self.gpu {
                None => {
                    draft.outcome = Outcome::NoGpu;
                    draft.message = "compiled; no GPU here".into();
                }
                Some(gpu) => {
                    let measuring = Instant::now();
                    let record = gpu.measure(runnable, &example, self.run_limit);
                    draft.elapsed.measure = ms(measuring.elapsed());
                    answer::settle_measured(&mut draft, record, &self.scrub, spliced, &example);
                    if let Some(stage) = &runnable.stage
                        && super::gates::needs_profile(stage)
                        && draft.outcome == Outcome::Measured
                    {
                        let profiling = Instant::now();
                        profile = Some(super::profile::reader_profile(
                            &self.book,
                            &self.children,
                            runnable,
                            &spliced.text,
                            super::measure::quick_size(runnable, &example),
                            &self.ncu,
                            self.run_limit * 4,
                        ));
                        draft.elapsed.measure += ms(profiling.elapsed());
                    }
                }
            }
        }
        if let Some(stage) = &runnable.stage {
            draft.gates = super::gates::judge(
                &self.book,
                stage,
                draft.record.as_ref(),
                profile.as_ref(),
                self.gpu.is_some(),
            );
        }
        draft.elapsed.total = ms(started.elapsed());
        answer::finish(draft, &runnable.example.id, &self.scrub)
    }

    /// The compile step's draft: a compile error, a time-out, a fault, or
    /// an example that compiled and matches its declaration, to measure
    /// next.
    fn compiled(&self, runnable: &Runnable, spliced: &Spliced) -> Draft {
        let example = match runnable.rebuild(&self.book, &spliced.text) {
            Ok(example) => example,
            Err(e) => return self.unresolved(runnable, spliced, &e),
        };
        let key = cuda_runner::key::example_key(&example);
        let verdict = match self.compile(&example) {
            Ok(verdict) => verdict,
            Err(e) => {
                return Draft::new(
                    Outcome::Fault,
                    format!("the service could not start its compiler: {e:#}"),
                );
            }
        };
        let first_line = example.origin.line;
        let file = example.origin.file.clone();
        match &verdict {
            CompileVerdict::Refused { first_error, log } => {
                let diagnostics = diagnostics::diagnostics(log, &file, first_line, spliced);
                let message = answer::first_error_message(&diagnostics, first_error);
                let mut draft = Draft::new(Outcome::CompileError, message.clone());
                draft.diagnostics = diagnostics;
                draft.record = Some(failure(&example, &key, Status::CompileError, &message, log));
                draft
            }
            CompileVerdict::TimedOut { limit_s } => {
                let message = format!(
                    "compiling took longer than the {limit_s} s compile limit and was stopped"
                );
                let mut draft = Draft::new(Outcome::Timeout, message.clone());
                draft.record = Some(failure(&example, &key, Status::Timeout, &message, ""));
                draft
            }
            CompileVerdict::Failed { message } | CompileVerdict::NoNvrtc { message } => {
                let message = format!("the compiler failed: {message}");
                let mut draft = Draft::new(Outcome::Fault, message.clone());
                draft.record = Some(failure(&example, &key, Status::Fault, &message, ""));
                draft
            }
            CompileVerdict::Compiled { log, .. } => {
                let warnings = diagnostics::diagnostics(log, &file, first_line, spliced);
                if let Some(broken) = cuda_runner::compile_judge::judge(&example, &verdict).broken()
                {
                    let mut draft = Draft::new(Outcome::CompileError, broken.clone());
                    draft.diagnostics = warnings;
                    draft.mismatch = true;
                    draft.record =
                        Some(failure(&example, &key, Status::CompileError, &broken, log));
                    return draft;
                }
                let mut draft = Draft::new(Outcome::NoGpu, "compiled".to_string());
                draft.diagnostics = warnings;
                draft.measure_next = Some(example);
                draft
            }
        }
    }

    /// The draft for a reader's text that does not resolve (an include
    /// outside the kernels folder, a missing include): a compile error at
    /// the reader's line.
    fn unresolved(&self, runnable: &Runnable, spliced: &Spliced, e: &ExampleError) -> Draft {
        let first_line = runnable.example.origin.line;
        let line = (e.origin.file == runnable.example.origin.file && e.origin.line >= first_line)
            .then(|| spliced.reader_line(e.origin.line - first_line + 1))
            .flatten();
        let message = match line {
            Some(line) => format!("line {line}: {}", e.message),
            None => e.to_string(),
        };
        let mut draft = Draft::new(Outcome::CompileError, message.clone());
        draft.diagnostics = vec![super::api::Diagnostic {
            line,
            column: None,
            severity: "error".into(),
            message: e.message.clone(),
        }];
        draft
    }

    /// NVRTC's verdict on `example`, from a compile worker started through
    /// the service's launcher, within the compile limit.
    fn compile(&self, example: &Example) -> anyhow::Result<CompileVerdict> {
        // In the work folder, given to the sandbox's user.
        let launcher = self.children.compile_launcher();
        let mut job = launcher.temp_file("compile-", ".json")?;
        serde_json::to_writer(
            &mut job,
            &CompileJob {
                examples: vec![example.clone()],
            },
        )?;
        job.flush()?;
        let mut verdicts = crate::cmd::compile_workers::verdicts_launched(
            launcher,
            self.children.runner(),
            job.path(),
            &self.arch,
            std::slice::from_ref(example),
            Some(self.compile_limit),
        )?;
        Ok(verdicts.remove(0))
    }
}

/// A failure record of the reader's example, marked quick.
fn failure(example: &Example, key: &str, status: Status, message: &str, log: &str) -> Record {
    let mut record = Record::failure(example, key, status, message, log);
    record.quick = true;
    record
}

/// Whole milliseconds.
pub fn ms(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}
