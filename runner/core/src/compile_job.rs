//! The compile-only job: the plugin (every build, and `mdbook-cuda check`)
//! hands the book's examples to `cuda-runner compile --job FILE --arch
//! ARCH` and reads back a [`CompileAnswer`]: the NVRTC the runner loaded and
//! one verdict per example, so that the plugin itself never loads NVRTC. A
//! job without examples asks only which NVRTC the runner finds.

use crate::example::Example;
use crate::ptx::Entry;
use serde::{Deserialize, Serialize};
use std::time::Duration;

pub use crate::declaration::DEFAULT_COMPILE_TIMEOUT_S;

/// The compile limit of `example`: its header's `compile_timeout_s`, else
/// [`DEFAULT_COMPILE_TIMEOUT_S`].
pub fn compile_limit_s(example: &Example) -> u64 {
    example
        .declaration
        .compile_timeout_s
        .unwrap_or(DEFAULT_COMPILE_TIMEOUT_S)
}

/// [`compile_limit_s`] as a duration.
pub fn compile_limit(example: &Example) -> Duration {
    Duration::from_secs(compile_limit_s(example))
}

/// What NVRTC made of one example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum CompileVerdict {
    /// It compiled; `log` holds any warnings.
    Compiled {
        /// The compiler log, possibly empty.
        log: String,
        /// Size of the cubin.
        cubin_bytes: usize,
        /// The kernels the program defines, read from its PTX (empty in
        /// the output of runners older than this field).
        #[serde(default)]
        entries: Vec<Entry>,
    },
    /// NVRTC refused the source.
    Refused {
        /// The first error line, with the author's file and line.
        first_error: String,
        /// The whole log.
        log: String,
    },
    /// NVRTC is not installed where the runner looks; no example can be
    /// compiled.
    NoNvrtc {
        /// What to install and where.
        message: String,
    },
    /// NVRTC failed for another reason.
    Failed {
        /// The reason.
        message: String,
    },
    /// NVRTC did not finish within the example's compile limit
    /// ([`compile_limit_s`]) and was stopped.
    TimedOut {
        /// The limit it ran into, in seconds.
        limit_s: u64,
    },
}

/// The NVRTC a runner loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nvrtc {
    /// `major.minor`, as `nvrtcVersion` gives it: `13.0`.
    pub version: String,
    /// The library file the runner loaded, where it can tell (Linux).
    #[serde(default)]
    pub library: Option<String>,
}

/// What `cuda-runner compile` prints: which runner and NVRTC compiled, and
/// one verdict per example of the job, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompileAnswer {
    /// The runner's version (its package version).
    pub runner: String,
    /// The NVRTC it loaded, or `None` when it found none.
    pub nvrtc: Option<Nvrtc>,
    /// Why there is no NVRTC to compile with, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvrtc_missing: Option<String>,
    /// One verdict per example.
    pub verdicts: Vec<CompileVerdict>,
}

impl CompileAnswer {
    /// Reads a runner's output: this object, or the bare array of verdicts
    /// that runners older than it print (they do not say which NVRTC
    /// compiled, so nothing they answer can be cached).
    pub fn parse(output: &[u8]) -> serde_json::Result<CompileAnswer> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Printed {
            Answer(CompileAnswer),
            Verdicts(Vec<CompileVerdict>),
        }
        Ok(match serde_json::from_slice(output)? {
            Printed::Answer(answer) => answer,
            Printed::Verdicts(verdicts) => CompileAnswer {
                runner: String::new(),
                nvrtc: None,
                nvrtc_missing: Some(
                    "the runner does not say which NVRTC it compiles with (it is older than this mdbook-cuda): rebuild it with `cargo build -p cuda-runner`".into(),
                ),
                verdicts,
            },
        })
    }
}

/// The job file: the examples, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompileJob {
    /// The examples to compile.
    pub examples: Vec<Example>,
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verdicts travel as tagged JSON objects that read back as written.
    #[test]
    fn verdicts_round_trip() {
        let v = vec![
            CompileVerdict::Compiled {
                log: String::new(),
                cubin_bytes: 7,
                entries: vec![Entry {
                    name: "k".into(),
                    params: vec![crate::ptx::ParamKind::U64, crate::ptx::ParamKind::U32],
                }],
            },
            CompileVerdict::Refused {
                first_error: "k.cu(3): error".into(),
                log: "k.cu(3): error\n1 error".into(),
            },
            CompileVerdict::TimedOut { limit_s: 5 },
        ];
        let text = serde_json::to_string(&v).unwrap();
        assert!(text.starts_with(r#"[{"outcome":"compiled","#), "{text}");
        assert!(
            text.ends_with(r#"{"outcome":"timed-out","limit_s":5}]"#),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<Vec<CompileVerdict>>(&text).unwrap(),
            v
        );
    }

    // The answer is an object naming the runner and its NVRTC; the bare
    // array of older runners still reads, with no NVRTC to cache under.
    #[test]
    fn answers_read_in_both_forms() {
        let answer = CompileAnswer {
            runner: "0.1.0".into(),
            nvrtc: Some(Nvrtc {
                version: "13.0".into(),
                library: Some("/lib/libnvrtc.so.13".into()),
            }),
            nvrtc_missing: None,
            verdicts: vec![CompileVerdict::Failed {
                message: "x".into(),
            }],
        };
        let text = serde_json::to_vec(&answer).unwrap();
        assert_eq!(CompileAnswer::parse(&text).unwrap(), answer);
        let old = CompileAnswer::parse(br#"[{"outcome":"failed","message":"x"}]"#).unwrap();
        assert_eq!(old.verdicts, answer.verdicts);
        assert_eq!(old.nvrtc, None);
        assert!(
            old.nvrtc_missing
                .unwrap()
                .contains("older than this mdbook-cuda")
        );
        assert!(CompileAnswer::parse(b"{}").is_err());
    }

    // A runner that predates `entries` still answers in a form that reads.
    #[test]
    fn verdicts_without_entries_read() {
        let old = r#"[{"outcome":"compiled","log":"","cubin_bytes":7}]"#;
        let read: Vec<CompileVerdict> = serde_json::from_str(old).unwrap();
        assert_eq!(
            read,
            [CompileVerdict::Compiled {
                log: String::new(),
                cubin_bytes: 7,
                entries: Vec::new(),
            }]
        );
    }
}
