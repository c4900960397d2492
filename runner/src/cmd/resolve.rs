//! What the command line names, resolved: `.cu` files and folders into
//! examples, `--size` text into a size of an example's problem, a kernel
//! file into a file of its book's results folder; and JSON written there as
//! the store writes its files.

use anyhow::{Context, Result, bail};
use cuda_runner::example::{Example, ExampleError};
use std::path::{Path, PathBuf};

/// `--size` read as a size of `example`'s problem (`2^20`, `8192x8192`,
/// `M=N=K=4096`).
pub fn parse_size(example: &Example, text: &str) -> Result<cuda_runner::dims::Dims> {
    example
        .declaration
        .read_size(text)
        .map_err(|e| anyhow::anyhow!("--size {text}: {e}"))
}

/// The one example of the `.cu` file at `path`.
pub fn one_example(path: &Path) -> Result<Example> {
    let mut examples = load_examples(&[path.to_path_buf()])?;
    if examples.len() != 1 {
        bail!(
            "{} holds {} examples, not one",
            path.display(),
            examples.len()
        );
    }
    Ok(examples.remove(0))
}

/// The file `relative` under the results folder of the book that holds the
/// kernel file `kernel`.
pub fn results_file(kernel: &Path, relative: &str) -> Result<PathBuf> {
    Ok(book_of(&kernel.canonicalize()?)
        .0
        .join("results")
        .join(relative))
}

/// Writes `value` to `out` as the store writes its files.
pub fn write_json(out: &Path, value: &impl serde::Serialize) -> Result<()> {
    cuda_runner::atomic_file::write_json_atomically(out, value)
        .with_context(|| format!("writing {}", out.display()))
}

/// The book root and kernels folder of the absolute path `abs`: the
/// nearest `kernels/` above it and that folder's parent (the file's own
/// folder when there is no `kernels/`).
pub fn book_of(abs: &Path) -> (PathBuf, PathBuf) {
    let kernels = abs
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "kernels"))
        .map(Path::to_path_buf)
        .unwrap_or_else(|| abs.parent().expect("a file has a parent").to_path_buf());
    let root = kernels.parent().unwrap_or(&kernels).to_path_buf();
    (root, kernels)
}

/// Resolves `.cu` files (and folders of them) into examples, failing with
/// every file that does not resolve.
pub fn load_examples(paths: &[PathBuf]) -> Result<Vec<Example>> {
    let (examples, unreadable) = read_examples(paths)?;
    if !unreadable.is_empty() {
        let lines: Vec<String> = unreadable.iter().map(ToString::to_string).collect();
        bail!(
            "{} example(s) do not resolve:\n{}",
            lines.len(),
            lines.join("\n")
        );
    }
    Ok(examples)
}

/// Resolves `.cu` files (and folders of them) into examples, and says for
/// each file that does not resolve where and why. The book root is the
/// folder above the nearest `kernels/` ancestor.
pub fn read_examples(paths: &[PathBuf]) -> Result<(Vec<Example>, Vec<ExampleError>)> {
    let mut files = Vec::new();
    for p in paths {
        collect_cu(p, &mut files)?;
    }
    if files.is_empty() {
        bail!("no .cu files under {:?}", paths);
    }
    files.sort();
    let mut examples = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        let abs = file
            .canonicalize()
            .with_context(|| format!("{}", file.display()))?;
        let (root, kernels) = book_of(&abs);
        let rel = abs
            .strip_prefix(&kernels)
            .expect("under kernels")
            .to_string_lossy()
            .to_string();
        match Example::from_file(&root, &kernels, &rel, None, None) {
            Ok(example) => examples.push(example),
            Err(e) => unreadable.push(e),
        }
    }
    Ok((examples, unreadable))
}

/// Adds to `out` the `.cu` files at or under `path` that hold an example
/// header, in the order the folders list them.
fn collect_cu(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).with_context(|| format!("{}", path.display()))? {
            collect_cu(&entry?.path(), out)?;
        }
    } else if path.extension().is_some_and(|e| e == "cu") {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
        if text.contains(cuda_runner::source::HEADER_OPEN) {
            out.push(path.to_path_buf());
        }
    } else if !path.exists() {
        bail!("{}: no such file or folder", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole example: a header for `sum_f32` and its kernel.
    const EXAMPLE: &str = r#"/*+++
problem = "sum_f32"
sizes = ["2^20"]
[[launch]]
kernel = "sum"
grid = "ceil_div(n, 256)"
block = 256
args = ["input", "out", "n"]
+++*/
extern "C" __global__ void sum(const float* x, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}
"#;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    // A folder is searched through its subfolders; only `.cu` files that
    // hold an example header are kept (not headers-less helpers, not other
    // extensions); a path that does not exist is an error naming it.
    #[test]
    fn collect_cu_keeps_only_example_files() {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        write(&kernels.join("ch/deep/a.cu"), EXAMPLE);
        write(
            &kernels.join("ch/helper.cu"),
            "__device__ float twice(float x);\n",
        );
        write(&kernels.join("ch/notes.txt"), EXAMPLE);
        let mut found = Vec::new();
        collect_cu(&kernels, &mut found).unwrap();
        assert_eq!(found, vec![kernels.join("ch/deep/a.cu")]);

        let missing = kernels.join("nope");
        let e = collect_cu(&missing, &mut found).unwrap_err().to_string();
        assert_eq!(e, format!("{}: no such file or folder", missing.display()));
        // A missing `.cu` file fails on reading it, the error naming it.
        let missing = kernels.join("nope.cu");
        let e = collect_cu(&missing, &mut found).unwrap_err().to_string();
        assert_eq!(e, missing.display().to_string());
    }

    // Examples come back in path order, whatever order the folders list
    // them in or the command line names them in, so every command prints
    // and measures in the same order.
    #[test]
    fn read_examples_sorts_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        for name in ["z/last.cu", "a/first.cu", "m/middle.cu"] {
            write(&kernels.join(name), EXAMPLE);
        }
        let paths = [kernels.join("z"), kernels.join("a"), kernels.join("m")];
        let (examples, unreadable) = read_examples(&paths).unwrap();
        assert!(unreadable.is_empty(), "{unreadable:?}");
        let ids: Vec<&str> = examples.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a/first", "m/middle", "z/last"]);
    }

    // A kernel file's results go under the results folder beside the
    // nearest `kernels/` above it, however the file was named.
    #[test]
    fn results_file_is_under_the_books_results() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("book");
        let kernel = book.join("kernels/ch/sub/x.cu");
        write(&kernel, EXAMPLE);
        let named = book.join("kernels/ch/../ch/sub/x.cu");
        let out = results_file(&named, "sass/ch/sub/x.json").unwrap();
        assert_eq!(
            out,
            book.canonicalize()
                .unwrap()
                .join("results/sass/ch/sub/x.json")
        );
    }

    // Without a `kernels/` folder above it, a file's own folder stands for
    // the kernels folder and that folder's parent for the book.
    #[test]
    fn book_of_without_kernels_folder() {
        let (root, kernels) = book_of(Path::new("/a/b/x.cu"));
        assert_eq!(
            (root.as_path(), kernels.as_path()),
            (Path::new("/a"), Path::new("/a/b"))
        );
        let (root, kernels) = book_of(Path::new("/r/kernels/c/x.cu"));
        assert_eq!(
            (root.as_path(), kernels.as_path()),
            (Path::new("/r"), Path::new("/r/kernels"))
        );
    }
}
