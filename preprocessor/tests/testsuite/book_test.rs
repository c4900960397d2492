//! `BookTest`: a fixture book copied into a temporary folder, built with
//! the real `mdbook` binary and this crate's `mdbook-cuda` on PATH, in
//! frozen mode so no test ever measures.
//!
//! `mdbook` is found through the `MDBOOK` environment variable, else
//! `.tools/bin/mdbook` at the workspace root, else `mdbook` on PATH.
//!
//! Fixture results may store `"key": "@current"`: the copy gets the key the
//! runner library computes now, so a fixture stays fresh while the key's
//! recipe evolves; any other key is kept as written (that is how a stale
//! fixture is made). Any other stored file under `results/` (a peers
//! comparison's `ours_key`) may name an example's current key as
//! `"@current:ID"`, and any result may store `"method_version":
//! "@current"` for the runner's current measuring-method version, so that
//! hand-written fixtures do not turn stale when the method changes. An
//! all-reduce report may store `"kernels_key": "@allreduce-kernels"` for
//! the key of the fixture's own `kernels/allreduce/*.cu`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Placeholder for "the example's current key" in fixture results.
const CURRENT_KEY: &str = "\"@current\"";
/// Placeholder for "the current key of example ID" in any fixture result,
/// followed by the id and a closing quote: `"@current:reductions/fast"`.
const CURRENT_KEY_OF: &str = "\"@current:";

/// Placeholder for the runner's current method version.
const CURRENT_METHOD: &str = "\"method_version\": \"@current\"";

/// Placeholder for the key of the fixture's all-reduce kernels.
const ALLREDUCE_KERNELS: &str = "\"@allreduce-kernels\"";

/// A fixture book in a temporary folder.
pub struct BookTest {
    dir: tempfile::TempDir,
    envs: Vec<(String, String)>,
}

/// What a command printed and how it ended.
pub struct Run {
    /// Whether it exited 0.
    pub success: bool,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Self {
        Run {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Panics with both streams unless the command succeeded.
    pub fn assert_success(&self) -> &Self {
        assert!(
            self.success,
            "command failed\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Panics with both streams unless the command failed.
    pub fn assert_failure(&self) -> &Self {
        assert!(
            !self.success,
            "command succeeded\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl BookTest {
    /// Copies `tests/fixtures/<name>` and fills in current keys.
    pub fn from_fixture(name: &str) -> Self {
        let source = fixtures_dir().join(name);
        assert!(source.is_dir(), "no fixture book at {}", source.display());
        let dir = tempfile::Builder::new()
            .prefix("mdbook-cuda-test-")
            .tempdir()
            .expect("temporary folder");
        copy_tree(&source, dir.path());
        let test = BookTest {
            dir,
            envs: Vec::new(),
        };
        test.fill_current_keys();
        test
    }

    /// Sets an environment variable for every command of this test.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.envs.push((key.to_string(), value.to_string()));
        self
    }

    /// The book's root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    fn fill_current_keys(&self) {
        let disk = mdbook_cuda::book_files::load(self.root()).expect("fixture book loads");
        let settings = mdbook_cuda::config::Settings::load(&disk.root, &disk.config, |_| None)
            .expect("fixture settings");
        let catalog = mdbook_cuda::catalog::Catalog::build(&settings, &disk.chapters);
        let keys: HashMap<&str, &str> = catalog
            .entries
            .iter()
            .filter_map(|e| e.resolved.as_ref().ok())
            .map(|r| (r.example.id.as_str(), r.key.as_str()))
            .collect();
        for path in json_files(&settings.results) {
            let mut text = std::fs::read_to_string(&path).expect("read fixture result");
            if text.contains(CURRENT_METHOD) {
                text = text.replace(
                    CURRENT_METHOD,
                    &format!("\"method_version\": {}", cuda_measured_core::METHOD_VERSION),
                );
                std::fs::write(&path, &text).expect("write fixture result");
            }
            if text.contains(ALLREDUCE_KERNELS) {
                text = text.replace(
                    ALLREDUCE_KERNELS,
                    &format!("\"{}\"", allreduce_kernels_key(self.root())),
                );
                std::fs::write(&path, &text).expect("write fixture result");
            }
            if text.contains(CURRENT_KEY_OF) {
                let filled = fill_keys_of(&text, &keys)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                std::fs::write(&path, filled).expect("write fixture result");
            }
        }
        for entry in &catalog.entries {
            let Ok(resolved) = &entry.resolved else {
                continue;
            };
            let path = settings
                .results
                .join(format!("{}.json", resolved.example.id));
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if text.contains(CURRENT_KEY) {
                let filled = text.replace(CURRENT_KEY, &format!("\"{}\"", resolved.key));
                std::fs::write(&path, filled).expect("write fixture result");
            }
        }
    }

    /// A command for `program` in the book, with this test's environment
    /// (frozen mode and a runner that does not exist unless overridden).
    pub fn command(&self, program: &Path) -> Command {
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_mdbook-cuda"))
            .parent()
            .expect("binary folder");
        let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("PATH joins");
        let mut cmd = Command::new(program);
        cmd.current_dir(self.root())
            .env("PATH", path)
            .env("CUDA_MEASURED_MODE", "frozen")
            .env("CUDA_MEASURED_RUNNER", "/nonexistent/cuda-runner")
            .env_remove("CUDA_MEASURED_STRICT")
            .env_remove("RUST_LOG");
        for (key, value) in &self.envs {
            cmd.env(key, value);
        }
        cmd
    }

    /// Runs `mdbook ARGS` in the book.
    pub fn mdbook(&self, args: &[&str]) -> Run {
        let output = self
            .command(&mdbook_binary())
            .args(args)
            .output()
            .expect("mdbook runs");
        Run::from(output)
    }

    /// Runs `mdbook build`.
    pub fn build(&self) -> Run {
        self.mdbook(&["build"])
    }

    /// Runs `mdbook-cuda ARGS` in the book.
    pub fn mdbook_cuda(&self, args: &[&str]) -> Run {
        let output = self
            .command(Path::new(env!("CARGO_BIN_EXE_mdbook-cuda")))
            .args(args)
            .output()
            .expect("mdbook-cuda runs");
        Run::from(output)
    }

    /// A built file, read.
    pub fn read(&self, rel: &str) -> String {
        let path = self.root().join(rel);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    }

    /// The HTML between `<main>` and `</main>` of a built chapter
    /// (`reductions.html`), with volatile parts redacted.
    pub fn main_html(&self, page: &str) -> String {
        let html = self.read(&format!("book/{page}"));
        let start = html.find("<main>").expect("page has <main>") + "<main>".len();
        let end = html.find("</main>").expect("page has </main>");
        self.redact(html[start..end].trim())
    }

    /// Replaces what changes between runs: the temporary folder.
    pub fn redact(&self, text: &str) -> String {
        let root = self.root().to_string_lossy().into_owned();
        let canonical = self
            .root()
            .canonicalize()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        text.replace(&canonical, "[BOOK]").replace(&root, "[BOOK]")
    }

    /// Builds the book in frozen mode and snapshots the `<main>` of every
    /// chapter, in one snapshot named after the fixture: a fixture book with
    /// committed results becomes a test case with one call
    /// (`BookTest::snapshot_fixture("planted")`).
    pub fn snapshot_fixture(name: &str) {
        let test = BookTest::from_fixture(name);
        test.build().assert_success();
        let pages: Vec<String> = test
            .chapter_pages()
            .iter()
            .map(|page| format!("===== {page}\n{}\n", test.main_html(page)))
            .collect();
        insta::assert_snapshot!(name, pages.join("\n"));
    }

    /// The built page of every chapter, in SUMMARY order.
    pub fn chapter_pages(&self) -> Vec<String> {
        let disk = mdbook_cuda::book_files::load(self.root()).expect("fixture book loads");
        disk.chapters
            .iter()
            .map(|c| {
                let path = c.source_path.with_extension("html");
                path.to_string_lossy().replace('\\', "/")
            })
            .collect()
    }
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The `mdbook` to test with: `$MDBOOK`, the workspace's `.tools/bin/mdbook`,
/// or `mdbook` on PATH.
pub fn mdbook_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("MDBOOK") {
        return PathBuf::from(path);
    }
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/bin/mdbook");
    if tools.is_file() {
        return tools;
    }
    PathBuf::from("mdbook")
}

/// The key of the all-reduce kernels under `root`, as a page computes it.
pub fn allreduce_kernels_key(root: &Path) -> String {
    use cuda_measured_core::allreduce::kernels::{KERNEL_FILES, kernels_key};
    let texts: Vec<(&str, String)> = KERNEL_FILES
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(root.join(path))
                .unwrap_or_else(|e| panic!("fixture kernel {path}: {e}"));
            (*path, text)
        })
        .collect();
    let files: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (*p, t.as_str())).collect();
    kernels_key(&files)
}

/// `text` with every `"@current:ID"` replaced by the quoted key of ID.
fn fill_keys_of(text: &str, keys: &HashMap<&str, &str>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(CURRENT_KEY_OF) {
        out.push_str(&rest[..start]);
        let after = &rest[start + CURRENT_KEY_OF.len()..];
        let end = after.find('"').ok_or("unclosed \"@current:")?;
        let id = &after[..end];
        let key = keys
            .get(id)
            .ok_or_else(|| format!("\"@current:{id}\" names no example of the book"))?;
        out.push_str(&format!("\"{key}\""));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Every `.json` file under `dir`, recursively.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.expect("fixture entry").path();
        if path.is_dir() {
            out.extend(json_files(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read fixture folder") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}
