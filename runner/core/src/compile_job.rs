//! The compile-only job: the plugin's `mdbook-cuda check` hands the book's
//! examples to `cuda-runner compile --job FILE --arch ARCH` and reads back
//! one verdict per example, so that the plugin itself never loads NVRTC.

use crate::example::Example;
use crate::ptx::Entry;
use serde::{Deserialize, Serialize};

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
        ];
        let text = serde_json::to_string(&v).unwrap();
        assert!(text.starts_with(r#"[{"outcome":"compiled","#), "{text}");
        assert_eq!(
            serde_json::from_str::<Vec<CompileVerdict>>(&text).unwrap(),
            v
        );
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
