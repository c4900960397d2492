//! Nsight Compute on the reader's kernel, for an exercise stage whose
//! gates read profile counters: `cuda-runner profile` (the book's own
//! command) is run, through the service's launcher, on a copy of the
//! book's kernels folder in which the stage's starter file holds the
//! reader's text, at the stage's size. Its profile goes into a copy of the
//! book's stored profiles, in the stage solution's place and under its
//! key (in that copy it stands for the solution, as the reader's record
//! does among the outcomes), so the book's gate code judges it as it
//! judges a stored one, baselines (the starter among them) from the
//! book's store.

use super::catalog::{Book, Origin, Runnable};
use super::children::Children;
use cuda_runner::dims::Dims;
use mdbook_cuda::stored::StoredReports;
use std::path::Path;
use std::time::Duration;

/// A results folder that holds the book's profiles and the reader's.
#[derive(Debug)]
pub struct Overlay {
    /// The folder (removed when dropped).
    dir: tempfile::TempDir,
}

impl Overlay {
    /// The stored reports of the overlay, for `exercise_gates`.
    pub fn stored(&self, book: &Book) -> StoredReports {
        let shown = book
            .results
            .strip_prefix(&book.root)
            .unwrap_or(Path::new("results"));
        StoredReports::new(&self.dir.path().join("results"), shown.to_string_lossy())
            .with_root(&book.root)
    }
}

/// Profiles the reader's `spliced_text` of the stage `runnable` at `size`
/// with the Nsight Compute executable `ncu`, within `limit`; the overlay,
/// or why there is none, in words for the reader.
pub fn reader_profile(
    book: &Book,
    children: &Children,
    runnable: &Runnable,
    spliced_text: &str,
    size: Dims,
    ncu: &Path,
    limit: Duration,
) -> Result<Overlay, String> {
    let Origin::File { rel_path, .. } = &runnable.origin else {
        return Err("only a kernel file can be profiled".into());
    };
    let failed = |e: std::io::Error| format!("preparing the profile failed: {e}");
    let dir = tempfile::Builder::new()
        .prefix("profile-")
        .tempdir_in(children.work_dir())
        .map_err(failed)?;
    let kernels = dir.path().join("kernels");
    copy_tree(&book.kernels, &kernels).map_err(failed)?;
    let file = kernels.join(rel_path);
    std::fs::write(&file, spliced_text).map_err(failed)?;
    let out = dir.path().join("reader-profile.json");
    let mut command = children.launcher().command(children.runner());
    command
        .arg("profile")
        .arg(&file)
        .args(["--size", &size.n_value().to_string()])
        .arg("--out")
        .arg(&out)
        .arg("--ncu")
        .arg(ncu);
    cuda_runner::lifetime::die_with_this_process(&mut command);
    let finished = cuda_runner::child::run_limited(&mut command, limit, 16 * 1024, 16 * 1024)
        .map_err(|e| format!("Nsight Compute could not be started: {e}"))?;
    match finished.status {
        None => {
            return Err(format!(
                "profiling took longer than {} s and was stopped",
                limit.as_secs()
            ));
        }
        Some(status) if !status.success() => {
            let why = String::from_utf8_lossy(finished.stderr.bytes());
            return Err(format!(
                "profiling failed: {}",
                why.lines().next().unwrap_or("no message")
            ));
        }
        Some(_) => {}
    }
    let text = std::fs::read_to_string(&out).map_err(failed)?;
    let profile: cuda_runner::profile::Profile =
        serde_json::from_str(&text).map_err(|e| format!("the profile cannot be read: {e}"))?;
    let Some(stage) = &runnable.stage else {
        return Err("only an exercise stage's kernel is profiled".into());
    };
    overlay(book, dir, stage, profile, size)
}

/// The overlay in `dir` holding the book's stored profiles and `profile`
/// (the reader's) in the place of `stage`'s solution, under its key, as
/// the reader's record is among the outcomes (`super::gates`).
pub fn overlay(
    book: &Book,
    dir: tempfile::TempDir,
    stage: &cuda_measured_core::exercise::Stage,
    mut profile: cuda_runner::profile::Profile,
    size: Dims,
) -> Result<Overlay, String> {
    let failed = |e: std::io::Error| format!("preparing the profile failed: {e}");
    let id = stage.solution.id();
    let book_key = book
        .catalog
        .by_id(id)
        .and_then(|i| book.catalog.entries[i].resolved.as_ref().ok())
        .map(|r| r.key.clone())
        .ok_or_else(|| format!("`{id}` is not in the book's catalog"))?;
    profile.key = book_key;
    profile.example = id.to_string();
    let results = dir.path().join("results");
    let stored_profiles = book.results.join("profile");
    if stored_profiles.is_dir() {
        copy_tree(&stored_profiles, &results.join("profile")).map_err(failed)?;
    }
    let target = cuda_runner::limits::KnownGpu::target().name;
    let place = results.join(cuda_runner::profile::relative_path(id, size, target));
    std::fs::create_dir_all(place.parent().expect("a file has a folder")).map_err(failed)?;
    std::fs::write(
        &place,
        serde_json::to_vec(&profile).map_err(|e| e.to_string())?,
    )
    .map_err(failed)?;
    Ok(Overlay { dir })
}

/// Copies the files under `from` to `to`, folders made as needed.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // A tree is copied whole, nested folders included.
    #[test]
    fn trees_are_copied() {
        let from = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(from.path().join("a/b")).unwrap();
        std::fs::write(from.path().join("a/b/x.cu"), "x").unwrap();
        std::fs::write(from.path().join("y.cuh"), "y").unwrap();
        let to = tempfile::tempdir().unwrap();
        copy_tree(from.path(), &to.path().join("k")).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.path().join("k/a/b/x.cu")).unwrap(),
            "x"
        );
        assert_eq!(
            std::fs::read_to_string(to.path().join("k/y.cuh")).unwrap(),
            "y"
        );
    }
}
