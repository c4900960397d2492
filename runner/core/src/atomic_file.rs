//! Writing a file whole or not at all: a temporary file in the same
//! folder, flushed to disk, then renamed over the old one. The store's
//! records, the problems' input caches, profiles and the build's compile
//! cache are written through it; it imports nothing of the crate, so any
//! layer may use it.

use std::io::Write;
use std::path::Path;

/// Writes `value` as pretty JSON (with a final newline) to `path`, whole
/// or not at all: a temporary file in the same folder (created as
/// needed), flushed to disk, then renamed over the old file. Records,
/// profiles and the build's compile cache are written through it.
pub fn write_json_atomically(path: &Path, value: &impl serde::Serialize) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    write_atomically(path, text.as_bytes())
}

/// Writes `bytes` to `path` under a temporary name in the same folder,
/// then renames it into place: a reader sees the old file or the whole
/// new one, never a torn one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
