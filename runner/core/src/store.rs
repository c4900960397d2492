//! The results store: one JSON record per example under `results/`, read
//! by key, written atomically so that a measuring run killed halfway loses
//! nothing stored before it.

use crate::record::Record;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What the store holds for an example, compared with its current key.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// A record with the current key.
    Fresh(Record),
    /// A record for an earlier version of the example.
    Stale(Record),
    /// Nothing stored.
    Missing,
}

/// Errors reading or writing the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The id cannot name a file.
    #[error(
        "example id `{0}` is not usable as a file name: use letters, digits, '-', '_' and '/' only"
    )]
    BadId(String),
    /// I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A record that does not parse.
    #[error("{path}: not a valid result record ({message}); delete it to re-measure")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Parser message.
        message: String,
    },
}

/// A results folder.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// A store rooted at `root` (usually `<book>/results`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Store { root: root.into() }
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of an example id.
    pub fn path_of(&self, id: &str) -> Result<PathBuf, StoreError> {
        let ok = !id.is_empty()
            && !id.starts_with('/')
            && !id
                .split('/')
                .any(|part| part.is_empty() || part == "." || part == "..")
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/' | '.'));
        if !ok {
            return Err(StoreError::BadId(id.to_string()));
        }
        Ok(self.root.join(format!("{id}.json")))
    }

    /// Reads the record of `id`, if any.
    pub fn read(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let path = self.path_of(id)?;
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path,
                message: e.to_string(),
            })
    }

    /// Compares what is stored for `id` with `key`.
    pub fn lookup(&self, id: &str, key: &str) -> Result<Lookup, StoreError> {
        Ok(match self.read(id)? {
            Some(r) if r.key == key => Lookup::Fresh(r),
            Some(r) => Lookup::Stale(r),
            None => Lookup::Missing,
        })
    }

    /// Writes a record atomically: a temporary file in the same folder,
    /// flushed, then renamed over the old one.
    pub fn write(&self, record: &Record) -> Result<PathBuf, StoreError> {
        let path = self.path_of(&record.example)?;
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
        let mut text = serde_json::to_string_pretty(record).expect("records serialise");
        text.push('\n');
        tmp.write_all(text.as_bytes()).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&path).map_err(|e| io(e.error))?;
        Ok(path)
    }
}
