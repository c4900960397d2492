//! Which version of the book's all-reduce kernels a report measured: the
//! runner builds `kernels/allreduce/*.cu` into itself, and a report
//! carries [`kernels_key`] of those sources, so that a page showing the
//! report can tell when the kernels changed since (it hashes the files as
//! they are now, the same way).

use serde::Serialize;
use sha2::{Digest, Sha256};

/// The kernel files the runner builds in, relative to the book's root
/// (as `runner/src/allreduce/ours.rs` names them).
pub const KERNEL_FILES: [&str; 2] = [
    "kernels/allreduce/one_shot.cu",
    "kernels/allreduce/two_shot.cu",
];

#[derive(Serialize)]
struct KeyInput<'a> {
    /// (path, text), sorted by path.
    files: Vec<(&'a str, &'a str)>,
}

/// The key of the kernel sources `files` (path relative to the book's
/// root, text): a SHA-256 hex digest of every path and text, in any order
/// given. Any edit to a file, or a file added, removed or renamed, changes
/// it.
pub fn kernels_key(files: &[(&str, &str)]) -> String {
    let mut files = files.to_vec();
    files.sort_unstable();
    let json = serde_json::to_vec(&KeyInput { files }).expect("key input serialises");
    Sha256::digest(&json)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: (&str, &str) = ("kernels/allreduce/one_shot.cu", "__global__ void a() {}\n");
    const TWO: (&str, &str) = ("kernels/allreduce/two_shot.cu", "__global__ void b() {}\n");

    // The runner and the page may list the files in any order.
    #[test]
    fn order_does_not_change_the_key() {
        assert_eq!(kernels_key(&[ONE, TWO]), kernels_key(&[TWO, ONE]));
        assert_eq!(kernels_key(&[ONE, TWO]).len(), 64);
    }

    // An edit to either kernel, a renamed file or a file fewer is another key.
    #[test]
    fn any_change_to_the_sources_changes_the_key() {
        let base = kernels_key(&[ONE, TWO]);
        let edited = (TWO.0, "__global__ void b() { }\n");
        let renamed = ("kernels/allreduce/three_shot.cu", TWO.1);
        for other in [
            kernels_key(&[ONE, edited]),
            kernels_key(&[ONE, renamed]),
            kernels_key(&[ONE]),
        ] {
            assert_ne!(base, other);
        }
    }

    // The list names every kernel file of kernels/allreduce/, so a kernel
    // added there is part of the key (and must be built into the runner).
    #[test]
    fn the_list_is_every_kernel_file_of_the_folder() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../kernels/allreduce");
        let mut found: Vec<String> = std::fs::read_dir(folder)
            .expect("kernels/allreduce/ is readable")
            .map(|e| {
                e.expect("a folder entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| name.ends_with(".cu") || name.ends_with(".cuh"))
            .map(|name| format!("kernels/allreduce/{name}"))
            .collect();
        found.sort();
        assert_eq!(found, KERNEL_FILES);
    }
}
