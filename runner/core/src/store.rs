//! The results store: one JSON record per example under `results/`, read
//! by key, written atomically so that a measuring run killed halfway loses
//! nothing stored before it.

use crate::atomic_file::write_json_atomically;
use crate::record::Record;
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

/// The folder, under the store's root, of records measured on GPU models
/// other than the book's target.
pub const GPUS_DIR: &str = "gpus";

/// A GPU's name as a folder name: `NVIDIA H100 PCIe` is `nvidia-h100-pcie`.
pub fn model_slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// A results folder.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    target: String,
}

impl Store {
    /// A store rooted at `root` (usually `<book>/results`) whose records
    /// of the GPU model `target` (as the driver names it; the book passes
    /// [`crate::limits::KnownGpu::target`]'s name) are the examples' own,
    /// kept beside their ids.
    pub fn new(root: impl Into<PathBuf>, target: &str) -> Self {
        Store {
            root: root.into(),
            target: target.to_string(),
        }
    }

    /// The folder of the records measured on the GPU model `name`.
    fn of_model(&self, name: &str) -> Store {
        Store::new(
            self.root.join(GPUS_DIR).join(model_slug(name)),
            &self.target,
        )
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

    /// Where `record` is kept: beside the example's id for the store's
    /// target GPU (or a record that names no GPU), and under
    /// `gpus/<model>/` for any other GPU model, so that figures measured on
    /// another GPU sit beside the target's without replacing them.
    pub fn path_for(&self, record: &Record) -> Result<PathBuf, StoreError> {
        match record.gpu.as_ref().map(|g| g.name.as_str()) {
            Some(name) if name != self.target => self.of_model(name).path_of(&record.example),
            _ => self.path_of(&record.example),
        }
    }

    /// The record of `id` measured on the GPU model `gpu_name`, if one is
    /// kept (the target GPU's is the example's own record).
    pub fn read_on(&self, gpu_name: &str, id: &str) -> Result<Option<Record>, StoreError> {
        if gpu_name == self.target {
            return self.read(id);
        }
        self.of_model(gpu_name).read(id)
    }

    /// Writes a record atomically, where [`Store::path_for`] says: a
    /// temporary file in the same folder, flushed, then renamed over the
    /// old one.
    pub fn write(&self, record: &Record) -> Result<PathBuf, StoreError> {
        let path = self.path_for(record)?;
        write_json_atomically(&path, record).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::GpuFacts;

    /// The book's target GPU, as the book lays its store out.
    fn target() -> &'static str {
        crate::limits::KnownGpu::target().name
    }

    fn record_on(gpu: &str) -> Record {
        let mut r = crate::record::test_records::record("ch/k", gpu);
        r.gpu = Some(GpuFacts {
            name: gpu.to_string(),
            ..GpuFacts::default()
        });
        r
    }

    // An id names a file under the store and nowhere else: one that climbs
    // out (`..`), starts at the root, or has empty or `.` parts is refused,
    // so a record can never be read from or written to outside `results/`.
    #[test]
    fn ids_that_leave_the_store_are_refused() {
        let store = Store::new("/book/results", target());
        for id in [
            "..",
            "../secrets",
            "ch/../../etc/passwd",
            "ch/..",
            "/etc/passwd",
            "ch//k",
            "./k",
            "ch/./k",
            "",
            "ch/k name",
        ] {
            assert!(
                matches!(store.path_of(id), Err(StoreError::BadId(bad)) if bad == id),
                "{id:?} was let through"
            );
        }
        assert_eq!(
            store.path_of("ch/k.v2").unwrap(),
            Path::new("/book/results/ch/k.v2.json")
        );
    }

    // A record is fresh while its key is the example's, stale once the key
    // changed, and missing when none is stored.
    #[test]
    fn lookup_tells_fresh_from_stale_from_missing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path(), target());
        assert!(matches!(store.lookup("ch/k", "key1"), Ok(Lookup::Missing)));
        store
            .write(&crate::record::test_records::record("ch/k", "key1"))
            .unwrap();
        assert!(matches!(store.lookup("ch/k", "key1"), Ok(Lookup::Fresh(r)) if r.key == "key1"));
        assert!(matches!(store.lookup("ch/k", "key2"), Ok(Lookup::Stale(r)) if r.key == "key1"));
    }

    // Only a file that does not exist is a missing record: one that cannot
    // be read (here a folder in its place) is an error naming the path, so
    // that the example is not measured again over it as if it were new.
    #[test]
    fn an_unreadable_record_is_an_error_not_a_missing_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ch/k.json")).unwrap();
        let store = Store::new(dir.path(), target());
        match store.read("ch/k") {
            Err(StoreError::Io { path, .. }) => assert_eq!(path, dir.path().join("ch/k.json")),
            other => panic!("{other:?}"),
        }
    }

    // A record of another GPU model is kept beside the target's, which it
    // leaves as it was; each is read back by its GPU's name.
    #[test]
    fn another_gpus_record_sits_beside_the_targets() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path(), target());
        let target = target();
        store.write(&record_on(target)).unwrap();
        let other = store.write(&record_on("NVIDIA H100 PCIe")).unwrap();
        assert_eq!(other, dir.path().join("gpus/nvidia-h100-pcie/ch/k.json"));
        assert_eq!(store.read("ch/k").unwrap().unwrap().key, target);
        let kept = store.read_on("NVIDIA H100 PCIe", "ch/k").unwrap().unwrap();
        assert_eq!(kept.key, "NVIDIA H100 PCIe");
        assert_eq!(
            model_slug(" NVIDIA  A100-SXM4 (80GB) "),
            "nvidia-a100-sxm4-80gb"
        );
    }
}
