//! What NVRTC's verdict on an example means, given its declaration: a
//! compile error it does not declare, or a declaration that does not
//! match the compiled kernels ([`signature::check`]), is a mistake. Shared
//! by every build (which shows such an example as broken), `mdbook-cuda
//! check` and `cuda-runner check` (which list it as failed).

use crate::compile_job::{CompileVerdict, DEFAULT_COMPILE_TIMEOUT_S};
use crate::declaration::Expectation;
use crate::example::Example;
use crate::ptx::Entry;
use crate::signature;

/// The verdict on one example, held to its declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// It compiles and matches its declaration; `warnings` when the log is
    /// not empty.
    Compiles {
        /// Whether NVRTC warned.
        warnings: bool,
    },
    /// NVRTC refused it, as it declares (`expect = "compile-error"`).
    RefusedAsDeclared {
        /// NVRTC's first error.
        first_error: String,
    },
    /// It compiles, but declares `expect = "compile-error"`.
    CompilesAgainstDeclaration,
    /// NVRTC refused it.
    Refused {
        /// NVRTC's first error, with the author's file and line.
        first_error: String,
        /// The whole log.
        log: String,
    },
    /// It compiles, but its declaration does not match the kernels: the
    /// message names the header line to change.
    Mismatch(String),
    /// NVRTC did not finish within the example's compile limit and was
    /// stopped.
    TimedOut {
        /// The limit, in seconds.
        limit_s: u64,
    },
    /// NVRTC could not be asked, or failed for another reason.
    NotCompiled(String),
}

impl Judgement {
    /// Whether `mdbook-cuda check` passes it.
    pub fn ok(&self) -> bool {
        matches!(
            self,
            Judgement::Compiles { .. } | Judgement::RefusedAsDeclared { .. }
        )
    }

    /// One line for `mdbook-cuda check`'s table.
    pub fn summary(&self) -> String {
        match self {
            Judgement::Compiles { warnings: false } => "compiles".into(),
            Judgement::Compiles { warnings: true } => "compiles, with warnings".into(),
            Judgement::RefusedAsDeclared { first_error } => {
                format!("compile error, as declared: {first_error}")
            }
            Judgement::CompilesAgainstDeclaration => {
                "compiles, but declares expect = \"compile-error\"".into()
            }
            Judgement::Refused { first_error, .. } => format!("compile error: {first_error}"),
            Judgement::Mismatch(message) => {
                format!("compiles, but does not match its declaration: {message}")
            }
            Judgement::TimedOut { limit_s } => timed_out(*limit_s),
            Judgement::NotCompiled(message) => message.clone(),
        }
    }

    /// Why a build shows the example as broken, when it must: a compile
    /// error it does not declare (the first error, then the rest of the
    /// log, at most [`LOG_LINES`] lines of it), a compile that ran into
    /// its limit, or a declaration that does not match its kernels. An example that compiles against its
    /// declaration is left to the GPU, whose record says so.
    pub fn broken(&self) -> Option<String> {
        match self {
            Judgement::Refused { first_error, log } => {
                let mut message = format!("does not compile: {first_error}");
                let log = log.trim();
                if !log.is_empty() && log != first_error.trim() {
                    message.push_str("\n\n");
                    message.push_str(&first_lines(log, LOG_LINES));
                }
                Some(message)
            }
            Judgement::Mismatch(message) => Some(message.clone()),
            Judgement::TimedOut { limit_s } => Some(timed_out(*limit_s)),
            _ => None,
        }
    }
}

/// What a compile time-out says: the limit, and the header key that
/// raises it.
fn timed_out(limit_s: u64) -> String {
    format!(
        "compile time-out: NVRTC did not finish within {limit_s} s and was stopped; a kernel that needs longer sets `compile_timeout_s` in its header (the default is {DEFAULT_COMPILE_TIMEOUT_S} s)"
    )
}

/// How many lines of NVRTC's log a broken example's panel shows.
pub const LOG_LINES: usize = 20;

/// The first `count` lines of `text`, and how many more there are.
fn first_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= count {
        return text.to_string();
    }
    format!(
        "{}\n… {} more line(s): `mdbook-cuda check` prints the whole log",
        lines[..count].join("\n"),
        lines.len() - count
    )
}

/// The verdict on `example`, given what it declares.
pub fn judge(example: &Example, verdict: &CompileVerdict) -> Judgement {
    let declared_error = example.declaration.expect == Expectation::CompileError;
    match verdict {
        CompileVerdict::Compiled { .. } if declared_error => Judgement::CompilesAgainstDeclaration,
        CompileVerdict::Compiled { log, entries, .. } => match declared_kernels(example, entries) {
            Err(mismatch) => Judgement::Mismatch(mismatch.to_string()),
            Ok(()) => Judgement::Compiles {
                warnings: !log.trim().is_empty(),
            },
        },
        CompileVerdict::Refused { first_error, .. } if declared_error => {
            Judgement::RefusedAsDeclared {
                first_error: first_error.clone(),
            }
        }
        CompileVerdict::Refused { first_error, log } => Judgement::Refused {
            first_error: first_error.clone(),
            log: log.clone(),
        },
        CompileVerdict::TimedOut { limit_s } => Judgement::TimedOut { limit_s: *limit_s },
        CompileVerdict::NoNvrtc { message } | CompileVerdict::Failed { message } => {
            Judgement::NotCompiled(message.clone())
        }
    }
}

/// The declaration against the compiled program's kernels
/// ([`signature::check`]). An example that declares `expect =
/// "launch-error"` may name a kernel the program lacks: the runner reports
/// that as the launch error it declares.
fn declared_kernels(
    example: &Example,
    entries: &[Entry],
) -> Result<(), crate::header_lines::HeaderError> {
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
    use crate::ptx::ParamKind;

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

    const ARGS: &str = r#"["input", "out", "n"]"#;

    // A declaration that matches its kernel passes; one whose args do not
    // is a mismatch naming the `args` line, and breaks the example in a
    // build.
    #[test]
    fn a_mismatched_declaration_fails_the_check() {
        let ok = judge(&example("", ARGS), &compiled("k"));
        assert_eq!(ok, Judgement::Compiles { warnings: false });
        assert!(ok.ok());
        assert_eq!(ok.broken(), None);
        let bad = judge(&example("", r#"["input", "out"]"#), &compiled("k"));
        assert!(!bad.ok());
        let summary = bad.summary();
        assert!(
            summary.starts_with(
                "compiles, but does not match its declaration: launch 0 (`k`) passes 2 arguments (input, out), but the kernel takes 3 parameters"
            ),
            "{summary}"
        );
        assert!(summary.ends_with("in `args` at src/ch.md:10"), "{summary}");
        let broken = bad.broken().unwrap();
        assert!(broken.starts_with("launch 0 (`k`) passes 2"), "{broken}");
    }

    // A missing kernel is what an example declaring a launch error may
    // demonstrate; otherwise it fails.
    #[test]
    fn a_missing_kernel_passes_only_when_a_launch_error_is_declared() {
        let plain = judge(&example("", ARGS), &compiled("_Z1kPKfPfj"));
        assert!(!plain.ok());
        assert!(
            plain
                .summary()
                .contains("only under its C++ name `_Z1kPKfPfj`"),
            "{}",
            plain.summary()
        );
        let declared = judge(
            &example("expect = \"launch-error\"\n", ARGS),
            &compiled("_Z1kPKfPfj"),
        );
        assert!(declared.ok(), "{}", declared.summary());
    }

    // A compile error breaks an example unless it declares one; the
    // message holds the first error, then the log, cut at LOG_LINES lines.
    #[test]
    fn compile_errors_break_only_undeclared_examples() {
        let refused = |log: &str| CompileVerdict::Refused {
            first_error: "src/ch.md(12): error: x".into(),
            log: log.into(),
        };
        let alone = judge(&example("", ARGS), &refused("src/ch.md(12): error: x"));
        assert_eq!(
            alone.broken().unwrap(),
            "does not compile: src/ch.md(12): error: x"
        );
        let long: String = (0..30).map(|i| format!("line {i}\n")).collect();
        let broken = judge(&example("", ARGS), &refused(&long)).broken().unwrap();
        assert!(
            broken.starts_with("does not compile: src/ch.md(12): error: x\n\nline 0\n"),
            "{broken}"
        );
        assert!(
            broken
                .ends_with("line 19\n… 10 more line(s): `mdbook-cuda check` prints the whole log"),
            "{broken}"
        );
        let declared = judge(
            &example("expect = \"compile-error\"\n", ARGS),
            &refused(&long),
        );
        assert!(declared.ok());
        assert_eq!(declared.broken(), None);
        let against = judge(
            &example("expect = \"compile-error\"\n", ARGS),
            &compiled("k"),
        );
        assert!(!against.ok());
        assert_eq!(against.broken(), None, "left to the GPU's record");
    }

    // A compile that ran into its limit breaks the example, even one that
    // declares a compile error (a time-out is no error NVRTC reported),
    // naming the limit and the header key that raises it.
    #[test]
    fn a_compile_time_out_breaks_the_example() {
        let verdict = CompileVerdict::TimedOut { limit_s: 5 };
        for expect in ["", "expect = \"compile-error\"\n"] {
            let judgement = judge(&example(expect, ARGS), &verdict);
            assert!(!judgement.ok());
            let broken = judgement.broken().unwrap();
            assert!(
                broken.starts_with("compile time-out: NVRTC did not finish within 5 s"),
                "{broken}"
            );
            assert!(broken.contains("`compile_timeout_s`"), "{broken}");
            assert_eq!(judgement.summary(), broken);
        }
    }
}
