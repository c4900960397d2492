//! The folder of reports stored next to the examples' records, written by
//! a measuring session (bench/gpu-session.sh), by `scripts/sass` or by
//! `cuda-runner allreduce` rather than by the preprocessor. Each kind of
//! report is read by its own module under [`crate::artifacts`] (which
//! names its file and how to make it again) through [`StoredReports::load`];
//! a file that is absent or unreadable is a [`StoredError`], worded for the
//! build log, not an error of the build.

use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// How to measure a stored report of a GPU session again.
pub const REMEASURE: &str = "run bench/gpu-session.sh on a GPU machine";

/// Why a stored report of a GPU session that is not current (`stale`
/// says why) fails a strict build: `results/peers/sum_f32.json: measured
/// for an earlier version of r/fast; run bench/gpu-session.sh on a GPU
/// machine`.
pub fn stale_problem(file: &str, stale: Option<&str>) -> Option<String> {
    stale.map(|reason| format!("{file}: {reason}; {REMEASURE}"))
}

/// Why a stored file cannot be used; each names the file as messages show
/// it and ends with the command that makes it again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoredError {
    /// The file does not exist (`absent`: `not measured`, `not run`).
    #[error("{absent}: {shown} does not exist; {fix}")]
    Absent {
        /// What its absence means: `not measured`, `not run yet`.
        absent: &'static str,
        /// `results/peers/sum_f32.json`.
        shown: String,
        /// How to make it.
        fix: String,
    },
    /// It exists but cannot be read.
    #[error("{shown} cannot be read ({error}); {fix}")]
    Unreadable {
        /// The file as messages show it.
        shown: String,
        /// The system's reason.
        error: String,
        /// How to make it again.
        fix: String,
    },
    /// It is not JSON of the report this preprocessor reads.
    #[error("{shown} is not a report this preprocessor reads ({error}); {fix}")]
    Malformed {
        /// The file as messages show it.
        shown: String,
        /// serde's reason.
        error: String,
        /// How to make it again.
        fix: String,
    },
    /// A file under the book's root (a host program) cannot be read.
    #[error("{rel} cannot be read ({error})")]
    BookFile {
        /// Its path under the book's root (`bench/host/host_sum.cu`).
        rel: String,
        /// The system's reason.
        error: String,
    },
}

impl StoredError {
    /// The reason without what an absent file's absence means
    /// (`results/x.json does not exist; run ...` without `not measured: `),
    /// for a panel whose heading already says it; the whole reason otherwise.
    pub fn detail(&self) -> String {
        match self {
            StoredError::Absent { shown, fix, .. } => format!("{shown} does not exist; {fix}"),
            other => other.to_string(),
        }
    }
}

/// The folder of stored reports (the results store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredReports {
    dir: PathBuf,
    shown: String,
    root: PathBuf,
}

impl StoredReports {
    /// Reports under `dir`, which messages show as `shown` (`results`);
    /// the book's root is taken to be the folder above `dir`.
    pub fn new(dir: &Path, shown: impl Into<String>) -> Self {
        StoredReports {
            dir: dir.to_path_buf(),
            shown: shown.into(),
            root: dir.parent().unwrap_or(dir).to_path_buf(),
        }
    }

    /// The same, with the book's root (where `bench/host/` is) at `root`.
    pub fn with_root(mut self, root: &Path) -> Self {
        self.root = root.to_path_buf();
        self
    }

    /// The bytes of a file under the book's root (`bench/host/host_sum.cu`),
    /// or why they cannot be read.
    pub fn book_file(&self, rel: &str) -> Result<Vec<u8>, StoredError> {
        std::fs::read(self.root.join(rel)).map_err(|e| StoredError::BookFile {
            rel: rel.to_string(),
            error: e.to_string(),
        })
    }

    /// Whether the file `rel` of the store exists (readable or not).
    pub fn exists(&self, rel: &str) -> bool {
        self.dir.join(rel).exists()
    }

    /// `rel` as a message shows it: `results/peers/sum_f32.json`.
    pub fn shown(&self, rel: &str) -> String {
        if self.shown.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.shown)
        }
    }

    /// The file `rel` read as a `T`, or why not: `absent` (`not
    /// measured`) when it does not exist, each reason ending with `fix`.
    pub fn load<T: DeserializeOwned>(
        &self,
        rel: &str,
        absent: &'static str,
        fix: &str,
    ) -> Result<T, StoredError> {
        let shown = self.shown(rel);
        let fix = fix.to_string();
        let text = match std::fs::read_to_string(self.dir.join(rel)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoredError::Absent { absent, shown, fix });
            }
            Err(e) => {
                return Err(StoredError::Unreadable {
                    shown,
                    error: e.to_string(),
                    fix,
                });
            }
        };
        serde_json::from_str(&text).map_err(|e| StoredError::Malformed {
            shown,
            error: e.to_string(),
            fix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Present files load; absent and malformed ones give the file and the
    // fix, in the words the build log has always had.
    #[test]
    fn reads_files_or_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("peers")).unwrap();
        std::fs::write(dir.path().join("peers/bad.json"), "{\"schema\": 1}").unwrap();
        std::fs::write(dir.path().join("good.json"), "[1, 2]").unwrap();
        let stored = StoredReports::new(dir.path(), "results");
        let good: Vec<u32> = stored.load("good.json", "not measured", REMEASURE).unwrap();
        assert_eq!(good, [1, 2]);
        let absent = stored
            .load::<Vec<u32>>("peers/sum_f32.json", "not measured", REMEASURE)
            .unwrap_err();
        assert_eq!(
            absent.to_string(),
            "not measured: results/peers/sum_f32.json does not exist; run bench/gpu-session.sh on a GPU machine"
        );
        let bad = stored
            .load::<Vec<u32>>("peers/bad.json", "not measured", "fix it")
            .unwrap_err();
        assert!(matches!(bad, StoredError::Malformed { .. }), "{bad:?}");
        assert!(
            bad.to_string()
                .starts_with("results/peers/bad.json is not a report this preprocessor reads (")
                && bad.to_string().ends_with("; fix it"),
            "{bad}"
        );
        let none = stored.book_file("bench/host/none.cu").unwrap_err();
        assert!(
            none.to_string()
                .starts_with("bench/host/none.cu cannot be read ("),
            "{none}"
        );
    }
}
